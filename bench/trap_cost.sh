#!/usr/bin/env bash
# Cost of trapped instruction sites (inline atomics at -O2), per operation:
# (median wall time under ctrl - median native wall time) / operations,
# for one execution with the random strategy, as the instructions issue asks.
#   bench/trap_cost.sh BUILD_DIR [REPS]
set -euo pipefail
build=${1:?usage: bench/trap_cost.sh BUILD_DIR [REPS]}
reps=${2:-5}
ctrl=$build/bin/ctrl
prog=$build/bin/bench_locked
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $((e - s)); }
row() {
  local label=$1 threads=$2 n=$3 mode=$4 strategy=$5
  local ops=$((threads * n)) native under
  native=$(for _ in $(seq "$reps"); do wall "$prog" "$threads" "$n" $mode; done | median)
  under=$(for _ in $(seq "$reps"); do
    wall "$ctrl" attach --strategy "$strategy" --seed 1 --max-executions 1 --max-steps $((ops * 2 + 1000)) "$prog" "$threads" "$n" $mode
  done | median)
  awk -v l="$label" -v u="$under" -v nat="$native" -v o="$ops" \
    'BEGIN { printf "%-58s %8.3f us/op  (ctrl %.3f s, native %.4f s)\n", l, (u - nat) / o / 1000, u / 1e9, nat / 1e9 }'
}
echo "trapped sites: median of $reps runs each"
row "2 threads x 100000 lock add [rip+x] (jump site), random" 2 100000 "" random
row "1 thread x 200000 lock add [rip+x] (jump site, no switch)" 1 200000 "" round-robin
row "2 threads x 100000 lock add [reg] (short site), random" 2 100000 pointer random
