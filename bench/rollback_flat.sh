#!/usr/bin/env bash
# Executions in place must not leak: runs ctrl on a sample for many
# executions (random strategy) and samples, every few seconds, the resident
# memory and open descriptors of ctrl and of the runner (the target process
# that runs the executions), and the number of target processes alive.
#
#   bash bench/rollback_flat.sh [BUILD_DIR] [EXECUTIONS] [SAMPLE]
# Prints one line per sample: seconds, ctrl RSS kB / fds, runner pid, RSS kB / fds, target processes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
n=${2:-100000}
sample=${3:-mutex_counter}
work=$(mktemp -d)
trap 'rm -rf "$work"; kill "$ctrl_pid" 2>/dev/null || true' EXIT
"$build/bin/ctrl" attach --strategy random --max-executions "$n" --trace-dir "$work/traces" \
  "$build/bin/$sample" >"$work/out" 2>"$work/err" &
ctrl_pid=$!
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo -; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
start=$(date +%s)
printf '%6s %10s %8s %8s %10s %8s %8s\n' seconds ctrl_rss ctrl_fds runner runner_rss run_fds targets
while kill -0 "$ctrl_pid" 2>/dev/null; do
  # The runner: the newest target process (the fork server is its parent).
  runner=$(pgrep -n -f "^$build/bin/$sample" || true)
  targets=$(pgrep -c -f "^$build/bin/$sample" || true)
  printf '%6s %10s %8s %8s %10s %8s %8s\n' $(($(date +%s) - start)) "$(rss "$ctrl_pid")" "$(fds "$ctrl_pid")" \
    "${runner:--}" "$( [ -n "$runner" ] && rss "$runner" || echo -)" "$( [ -n "$runner" ] && fds "$runner" || echo -)" \
    "$targets"
  sleep 3
done
wait "$ctrl_pid" || true
tail -1 "$work/out"
grep -h "rolled back" "$work/err" || true
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
