#!/usr/bin/env bash
# Cost of the memory models and of the Sober monitor over plain SC
# exploration: median wall time of whole DPOR explorations of the same
# program under --model sc, --monitor sober, --model tso and --model pso,
# runs interleaved so that load changes hit every mode alike.
#   bench/model_cost.sh BUILD_DIR [REPS]
set -euo pipefail
build=${1:?usage: bench/model_cost.sh BUILD_DIR [REPS]}
reps=${2:-9}
ctrl=$build/bin/ctrl
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
modes=("--model sc" "--monitor sober" "--model tso" "--model pso")
printf '%-40s %10s %16s %16s %16s\n' program sc "sober" tso pso
for prog in "writer_readers 8" "dekker fence" "mutex_peterson_seq_cst 2 2" "mutex_szymanski_seq_cst 2 1" \
  "mutex_bakery_seq_cst 2 2"; do
  read -r -a argv <<<"$prog"
  argv[0]=$build/bin/${argv[0]}
  declare -A times=()
  for _ in $(seq "$reps"); do
    for m in "${modes[@]}"; do
      # shellcheck disable=SC2086
      times[$m]+="$(wall "$ctrl" attach $m "${argv[@]}") "
    done
  done
  sc=$(tr ' ' '\n' <<<"${times[--model sc]}" | grep . | median)
  row=$(printf '%-40s %8d ms' "$prog" "$sc")
  for m in "--monitor sober" "--model tso" "--model pso"; do
    t=$(tr ' ' '\n' <<<"${times[$m]}" | grep . | median)
    row+=$(awk -v t="$t" -v s="$sc" 'BEGIN { printf " %7d ms %+5.0f%%", t, (t - s) * 100 / s }')
  done
  echo "$row"
  unset times
done
