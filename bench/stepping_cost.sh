#!/usr/bin/env bash
# Times the stepping session's moves on an execution of about 266,000
# visible operations (bench/stepping_long.c), with and without live
# checkpoints: goto 199000, then back 1000, then goto 199500 (issue 10: each
# under 50 ms after the first), and a few more. The trace comes from the
# first execution of `ctrl attach` under the strategy given (dpor: one thread
# runs long stretches; random: a switch at about every other step).
#
#   bash bench/stepping_cost.sh [BUILD_DIR] [dpor|random]
set -euo pipefail
build=${1:-build}
strategy=${2:-dpor}
ctrl="$build/bin/ctrl"
program="$build/bin/bench_stepping_long"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ctrl" attach --strategy "$strategy" --max-executions 1 --max-steps 400000 --no-shrink \
  --trace-dir "$work" "$program" >/dev/null || true
trace=$(ls "$work"/*.ctrltrace)
cat >"$work/moves.batch" <<'BATCH'
time goto 199000
time back 1000
time goto 199500
time back 50000
time goto 199000
time back 1
time goto 0
time goto 199000
BATCH
for mode in checkpoints no-checkpoints; do
  flag=()
  [ "$mode" = no-checkpoints ] && flag=(--no-checkpoints)
  echo "== $strategy trace, $mode"
  "$ctrl" replay "${flag[@]}" --batch "$work/moves.batch" "$trace" |
    awk '/^\(ctrl\) time/ { cmd = substr($0, 13) } /^time:/ { printf "  %-14s %s %s\n", cmd, $2, $3 }'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
