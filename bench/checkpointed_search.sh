#!/usr/bin/env bash
# Checkpointed search: median wall time of the whole DPOR exploration of
# samples/long_prefix_race (20000 visible stores before the racy part, 40
# executions) with live checkpoints (the default) and with --no-checkpoints,
# runs interleaved so that load changes hit both alike. Checks that both
# find the same executions; prints the load average next to the figures
# (docs/PERFORMANCE.md, "Checkpointed search").
#   bench/checkpointed_search.sh BUILD_DIR [REPS] [TABLE] [WORK]
# TABLE: the sample's table size (1000..20000, default 20000); WORK: rounds
# of computation per entry (default 0: the start is visible steps only).
# Exit status: 0 when both modes ran and agreed, 1 otherwise.
set -euo pipefail
build=${1:?usage: bench/checkpointed_search.sh BUILD_DIR [REPS] [TABLE]}
reps=${2:-9}
table=${3:-20000}
work=${4:-0}
ctrl=$build/bin/ctrl
prog=$build/bin/long_prefix_race
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A times=() summary=()
for _ in $(seq "$reps"); do
  for mode in checkpoints no-checkpoints; do
    args=(attach --trace-dir "$out/traces")
    [[ $mode == no-checkpoints ]] && args+=(--no-checkpoints)
    s=$(date +%s%N)
    "$ctrl" "${args[@]}" "$prog" "$table" "$work" >"$out/$mode.txt" 2>&1 || {
      cat "$out/$mode.txt" >&2
      exit 1
    }
    e=$(date +%s%N)
    times[$mode]+="$(((e - s) / 1000000)) "
    summary[$mode]=$(grep -E '^[0-9]+ executions \(' "$out/$mode.txt" | sed 's/, [0-9.]* s$//')
  done
done
if [[ "${summary[checkpoints]}" != "${summary[no-checkpoints]}" ]]; then
  echo "bench/checkpointed_search.sh: the modes disagree:" >&2
  printf '  with:    %s\n  without: %s\n' "${summary[checkpoints]}" "${summary[no-checkpoints]}" >&2
  exit 1
fi
with=$(tr ' ' '\n' <<<"${times[checkpoints]}" | grep . | median)
without=$(tr ' ' '\n' <<<"${times[no-checkpoints]}" | grep . | median)
echo "long_prefix_race $table $work: ${summary[checkpoints]}"
grep 'live checkpoint' "$out/checkpoints.txt" || true
printf 'with checkpoints      %6d ms (median of %d)\n' "$with" "$reps"
printf 'with --no-checkpoints %6d ms\n' "$without"
awk -v a="$without" -v b="$with" 'BEGIN { printf "speed-up              %6.2fx\n", a / b }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
