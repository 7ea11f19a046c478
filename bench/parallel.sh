#!/usr/bin/env bash
# -j 2 against -j 1 on the shared performance programs (../shared/bench:
# queue2 and faa, SC, built as bench/anchors.sh builds them): for each
# program and -j, the classes and wall time of a medium and a large instance,
# the steady-state rate between them (complete executions per second, start-up
# cancelled out), and how many of the large run's executions ran on a helper
# session ("taken"; "run ahead": all the helpers ran, issue 28's partition
# runs each execution once, so the two differ only by what a limit cut). The
# -j runs alternate, so that a change in the machine's load hits both alike.
#
#   bash bench/parallel.sh [BUILD_DIR] [JOBS] [STRATEGY]
#   (JOBS: the -j compared with 1, default 2; STRATEGY: --strategy, default
#   ctrl's own, dpor+probes; both it and dpor are partitioned, issue 28)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
jobs=${2:-2}
strategy=()
[ -n "${3:-}" ] && strategy=(--strategy "$3")
ctrl=$build/bin/ctrl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=shared_programs.sh
source "$root/bench/shared_programs.sh" bench/parallel.sh
# Prints "classes milliseconds taken run_ahead" for one run.
measure() { # binary jobs
  local s e out
  s=$(date +%s%N)
  "$ctrl" attach -j "$2" "${strategy[@]}" --max-executions 1000000 --trace-dir "$work/traces" --json "$work/report.json" "$work/$1" \
    >"$work/out" 2>&1
  e=$(date +%s%N)
  out=$(cat "$work/out")
  classes=$(sed -n 's/^\([0-9]*\) executions (\([0-9]*\) complete.*exhaustive: yes.*/\2/p' <<<"$out")
  [ -n "$classes" ] || { echo "bench/parallel.sh: $1 -j $2 did not finish exhaustively: $out" >&2; exit 1; }
  taken=$(sed -n 's/.*"taken": *\([0-9]*\).*/\1/p' "$work/report.json")
  ahead=$(sed -n 's/.*"run_ahead": *\([0-9]*\).*/\1/p' "$work/report.json")
  echo "$classes $(((e - s) / 1000000)) $taken $ahead"
}

rows=("queue2 5 7" "faa 7 8")
printf '%-14s %-4s %-18s %-18s %-14s %s\n' "program" "-j" "medium: classes, ms" "large: classes, ms" "exec/s" \
  "large: taken / run ahead / executions"
for row in "${rows[@]}"; do
  read -r prog small large <<<"$row"
  build_one "${prog}_$small" "$prog" "$small"
  build_one "${prog}_$large" "$prog" "$large"
  for j in 1 "$jobs"; do
    read -r c1 t1 _ _ < <(measure "${prog}_$small" "$j")
    read -r c2 t2 taken ahead < <(measure "${prog}_$large" "$j")
    rate=$(awk -v c1="$c1" -v c2="$c2" -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.0f", (c2 - c1) * 1000 / (t2 - t1) }')
    printf '%-14s %-4s %-18s %-18s %-14s %s\n' "$prog N=$small/$large" "$j" "$c1, $t1" "$c2, $t2" "$rate" \
      "$taken / $ahead / $c2"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
