#!/usr/bin/env bash
# How much a second CPU gives hand-off-bound work on this machine, the
# ceiling of -j 2 against -j 1 (issue 28): bench_handoff_pair pinned to each
# CPU alone, then one pair on each CPU at once. On a virtual machine the
# CPUs need not be equal, nor independent (their host threads may share a
# core or be taken by other guests); the ceiling is the sum of what each
# pair did at once, over the faster CPU alone. Then, for ctrl itself, the
# steady-state rate of queue2 N=7 under random at -j 1 pinned to each CPU
# and at -j 2 (as bench/partitioned.sh measures it).
#
#   bash bench/cpu_ceiling.sh [BUILD_DIR] [ROUNDS] [ROUND_TRIPS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-3}
trips=${3:-200000}
pair=$build/bin/bench_handoff_pair
ctrl=$build/bin/ctrl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=shared_programs.sh
source "$root/bench/shared_programs.sh" bench/cpu_ceiling.sh
build_one queue2_7 queue2 7
cpus=$(taskset -pc $$ | sed 's/.*: //')
# The first two CPUs this shell may use ("0-3", "0,2,5-7", ...).
read -r c0 c1 < <(echo "$cpus" | tr ',' '\n' |
  awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); ++c) printf "%d ", c } END { print "" }')
[ -n "${c1:-}" ] || { echo "bench/cpu_ceiling.sh: one CPU here ($cpus)" >&2; exit 2; }
rate() { # taskset-prefix jobs: complete executions per second between 2,000 and 20,000
  local t=() n s e
  for n in 2000 20000; do
    s=$(date +%s%N)
    $1 "$ctrl" attach -j "$2" --strategy random --keep-going --max-executions $n --trace-dir "$work/t" \
      --json "$work/r.json" "$work/queue2_7" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    t+=($(((e - s) / 1000000)))
  done
  echo $((18000 * 1000 / (t[1] - t[0])))
}
echo "CPUs allowed: $cpus; pairs of $trips round trips (ms), then ctrl on queue2 N=7, random (complete/s)"
printf '%-6s %-8s %-8s %-16s %-9s | %-10s %-10s %-8s %s\n' round "cpu$c0" "cpu$c1" "both at once" ceiling "-j1 cpu$c0" "-j1 cpu$c1" "-j2" "-j2 / best -j1"
for r in $(seq "$rounds"); do
  a=$(taskset -c $c0 "$pair" "$trips")
  b=$(taskset -c $c1 "$pair" "$trips")
  taskset -c $c0 "$pair" "$trips" >"$work/p0" &
  taskset -c $c1 "$pair" "$trips" >"$work/p1"
  wait
  x=$(cat "$work/p0") y=$(cat "$work/p1")
  ceiling=$(awk -v a="$a" -v b="$b" -v x="$x" -v y="$y" 'BEGIN { f = a < b ? a : b; printf "%.2fx", f / x + f / y }')
  j0=$(rate "taskset -c $c0" 1)
  j1=$(rate "taskset -c $c1" 1)
  j2=$(rate "" 2)
  ratio=$(awk -v a="$j0" -v b="$j1" -v j="$j2" 'BEGIN { m = a > b ? a : b; printf "%.2fx", j / m }')
  printf '%-6s %-8s %-8s %-16s %-9s | %-10s %-10s %-8s %s\n' "$r" "$a" "$b" "$x, $y" "$ceiling" "$j0" "$j1" "$j2" "$ratio"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
