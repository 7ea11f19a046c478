#!/usr/bin/env bash
# DPOR with live checkpoints on a real program (issue 22, item 6): ctrl
# must exit 0, no execution may leave its plan, whether it was continued
# from a checkpoint ("went elsewhere than its plan" on stderr, then run
# again from the start) or run from the start (an internal error, exit 3),
# and checkpoints must have been used ("N executions started from a live
# checkpoint").
#
# Usage: run_checkpointed_dpor.sh CTRL WORKDIR SECONDS -- PROGRAM ARGS...
# Exit status: 0 pass, 1 fail, 77 skip (PROGRAM is not installed).
set -u
if [ $# -lt 5 ] || [ "$4" != "--" ]; then
  echo "usage: run_checkpointed_dpor.sh CTRL WORKDIR SECONDS -- PROGRAM ARGS..." >&2
  exit 2
fi
ctrl=$1 work=$2 seconds=$3
shift 4
command -v "$1" >/dev/null 2>&1 || { echo "SKIP: $1 is not installed"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
timeout -k 10 $((seconds + 90)) "$ctrl" attach --strategy dpor --time-limit "$seconds" -- "$@" >ctrl.stdout 2>ctrl.stderr
rc=$?
fail() {
  echo "FAIL: $*"
  echo "---- ctrl exit status: $rc; stdout (last lines):"
  tail -n 5 ctrl.stdout
  echo "---- stderr:"
  tail -n 20 ctrl.stderr
  exit 1
}
echo "ctrl exited with $rc: $(tail -n 1 ctrl.stdout)"
[ $rc -eq 0 ] || fail "ctrl exited with $rc"
! grep -q "elsewhere than its plan" ctrl.stderr || fail "an execution continued from a checkpoint left its plan"
restored=$(sed -n 's/^ctrl: \([0-9]*\) executions\{0,1\} started from a live checkpoint.*/\1/p' ctrl.stderr)
[ -n "$restored" ] && [ "$restored" -gt 0 ] || fail "no execution started from a live checkpoint"
echo "PASS: $restored executions started from a live checkpoint"
exit 0
