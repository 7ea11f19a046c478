#!/usr/bin/env bash
# ctrl's exploration rate on the shared performance programs
# (../shared/bench next to the project: queue2 and faa, built here from
# there), next to the figures the in-process tools were measured at
# (../shared/bench/README.md). For each program and model: the classes
# (complete executions) and wall time of a medium and a large instance, and
# the steady-state rate between them, complete executions per second, so
# that start-up cancels out. Issue 12 compares against these.
#
#   bash bench/anchors.sh [BUILD_DIR] [REPS]
# REPS: runs of each instance, the median time is taken (default 1).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
reps=${2:-1}
ctrl=$build/bin/ctrl
shared=$root/../shared/bench
[ -f "$shared/queue2.c" ] || { echo "bench/anchors.sh: $shared/queue2.c is missing" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The libatomic variant: every atomic is a call ctrl sees with its order;
# tso: the relaxed variant (-DMO=memory_order_relaxed).
build_one() { # name program n model
  local mo=()
  [ "$4" = tso ] && mo=(-DMO=memory_order_relaxed)
  gcc -O2 -pthread -DN="$3" "${mo[@]}" -I"$shared" -fno-inline-atomics -o "$work/$1" "$shared/$2.c" -latomic
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Prints "classes milliseconds" for one instance.
measure() { # binary model
  local times=() classes=""
  for _ in $(seq "$reps"); do
    local s e
    s=$(date +%s%N)
    out=$("$ctrl" attach --model "$2" --max-executions 1000000 --trace-dir "$work/traces" "$work/$1")
    e=$(date +%s%N)
    classes=$(sed -n 's/^\([0-9]*\) executions (\([0-9]*\) complete.*exhaustive: yes.*/\2/p' <<<"$out")
    [ -n "$classes" ] || { echo "bench/anchors.sh: $1 under $2 did not finish exhaustively: $out" >&2; exit 1; }
    times+=($(((e - s) / 1000000)))
  done
  echo "$classes $(printf '%s\n' "${times[@]}" | median)"
}

# program, medium N, large N, anchors (GenMC / Nidhugg / CDSChecker, complete executions/s).
rows=(
  "queue2 5 7 sc|35k / 11.1k / 8.0k"
  "faa 7 8 sc|2.9k / 6.5k / 6.0k"
  "queue2 5 7 tso|38k / 10.0k / n/a"
  "faa 7 8 tso|n/a"
)
printf '%-16s %-18s %-18s %-14s %s\n' "program, model" "medium: classes, ms" "large: classes, ms" "ctrl, exec/s" \
  "GenMC / Nidhugg / CDSChecker (README)"
for row in "${rows[@]}"; do
  read -r prog small large model <<<"${row%%|*}"
  anchors=${row#*|}
  build_one "${prog}_$small" "$prog" "$small" "$model"
  build_one "${prog}_$large" "$prog" "$large" "$model"
  read -r c1 t1 < <(measure "${prog}_$small" "$model")
  read -r c2 t2 < <(measure "${prog}_$large" "$model")
  rate=$(awk -v c1="$c1" -v c2="$c2" -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.0f", (c2 - c1) * 1000 / (t2 - t1) }')
  printf '%-16s %-18s %-18s %-14s %s\n' "$prog N=$small/$large $model" "$c1, $t1" "$c2, $t2" "$rate" "$anchors"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
