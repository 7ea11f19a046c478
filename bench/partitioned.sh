#!/usr/bin/env bash
# -j JOBS against -j 1 for the seeded strategies (random, pct, pos), whose
# executions -j partitions into ranges of seeds (PartitionedSampling.h), on
# the shared performance programs (../shared/bench: queue2 N=7 and faa N=8,
# SC, built as bench/anchors.sh builds them). For each program, strategy and
# -j: the wall time of a run of SMALL and of LARGE executions, and the
# steady-state rate between them (complete executions per second, start-up
# cancelled out). The -j runs alternate, so that a change in the machine's
# load hits both alike; ROUNDS rounds.
#
#   bash bench/partitioned.sh [BUILD_DIR] [JOBS] [ROUNDS] [SMALL] [LARGE] [STRATEGIES]
#   (defaults: build 2 1 500 3000 "random pct pos")
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
jobs=${2:-2}
rounds=${3:-1}
small=${4:-500}
large=${5:-3000}
strategies=${6:-random pct pos}
ctrl=$build/bin/ctrl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=shared_programs.sh
source "$root/bench/shared_programs.sh" bench/partitioned.sh
# Prints "complete milliseconds" for one run.
measure() { # binary strategy jobs executions
  local s e out complete
  s=$(date +%s%N)
  "$ctrl" attach -j "$3" --strategy "$2" --keep-going --max-executions "$4" --trace-dir "$work/traces" \
    --json "$work/report.json" "$work/$1" >"$work/out" 2>&1 || true
  e=$(date +%s%N)
  complete=$(jq .executions.complete "$work/report.json" 2>/dev/null || true)
  [ -n "$complete" ] || { echo "bench/partitioned.sh: $1 $2 -j $3: no report: $(cat "$work/out")" >&2; exit 1; }
  echo "$complete $(((e - s) / 1000000))"
}

printf '%-10s %-7s %-5s %-3s %-16s %-16s %s\n' program strategy round -j "small: compl, ms" "large: compl, ms" "complete/s"
for row in "queue2 7" "faa 8"; do
  read -r prog n <<<"$row"
  build_one "${prog}_$n" "$prog" "$n"
  for strategy in $strategies; do
    for round in $(seq "$rounds"); do
      for j in 1 "$jobs"; do
        read -r c1 t1 < <(measure "${prog}_$n" "$strategy" "$j" "$small")
        read -r c2 t2 < <(measure "${prog}_$n" "$strategy" "$j" "$large")
        rate=$(awk -v c1="$c1" -v c2="$c2" -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.0f", (c2 - c1) * 1000 / (t2 - t1) }')
        printf '%-10s %-7s %-5s %-3s %-16s %-16s %s\n' "$prog N=$n" "$strategy" "$round" "$j" "$c1, $t1" "$c2, $t2" "$rate"
      done
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
