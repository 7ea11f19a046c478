#!/usr/bin/env bash
# Ctrl-C, SIGTERM and --time-limit stop ctrl promptly, with its report, and
# leave no target process behind.
#
#   sigint.sh CTRL PROGRAM WORKDIR [MODE]
#
# MODE (default: many):
#   many      ctrl explores PROGRAM (a correct program with many short
#             executions); SIGINT to ctrl's process group (as a terminal's
#             Ctrl-C) after a second: it ends within 5 s, exit 0 or 1.
#   INT-mid, TERM-mid
#             PROGRAM is samples/long_execution: one execution of 2,000,000
#             visible operations, then 30 s of computation. The signal
#             comes during the computation; ctrl ends within 1.5 s. No
#             execution completed: exit 2, "nothing was checked" (it
#             used to analyse the half execution first: seconds more).
#   INT-analysis
#             long_execution with no computation: SIGINT as soon as the
#             execution has ended, while ctrl analyses its 2,000,000 events;
#             ctrl ends within 1.5 s, exit 0, "interrupted by SIGINT" and
#             "exhaustive: no" in the summary.
#   time-limit
#             --time-limit 3 on the 30 s execution of INT-mid: ctrl ends
#             within 4.5 s of its start, exit 2, "nothing was checked",
#             "interrupted by the time limit".
set -u
set -m # background jobs get their own process group and do not ignore SIGINT

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: $0 CTRL PROGRAM WORKDIR [many|INT-mid|TERM-mid|INT-analysis|time-limit]" >&2
  exit 2
fi
ctrl=$1
program=$2
workdir=$3
mode=${4:-many}

rm -rf "$workdir"
mkdir -p "$workdir/traces" || exit 1
target="$workdir/sigint-target-$$-$RANDOM"
cp "$program" "$target" && chmod 755 "$target" || exit 1
target=$(realpath "$target")
pattern=$(printf '%s' "$target" | sed 's/[][\.*^$(){}?+|]/\\&/g')
out="$workdir/ctrl.out"
err="$workdir/ctrl.err"

fail() {
  echo "FAIL: $*"
  echo "---- ctrl's stdout ----"
  cat "$out" 2>/dev/null
  echo "---- ctrl's stderr ----"
  cat "$err" 2>/dev/null
  exit 1
}

now() { date +%s.%N; }
# Seconds from $1 to $2, as a decimal.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# Whether $1 <= $2.
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# Waits up to $2 seconds for ctrl's stdout to hold $1.
wait_for_output() {
  for _ in $(seq $(($2 * 20))); do
    grep -q -- "$1" "$out" 2>/dev/null && return 0
    kill -0 "$ctrl_pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# Waits up to $1 seconds for ctrl to end; kills it and fails otherwise.
wait_for_end() {
  local steps
  steps=$(awk -v s="$1" 'BEGIN { printf "%d", s * 20 }')
  for _ in $(seq "$steps"); do
    kill -0 "$ctrl_pid" 2>/dev/null || return 0
    sleep 0.05
  done
  kill -9 -- "-$ctrl_pid" 2>/dev/null
  wait "$ctrl_pid" 2>/dev/null
  fail "ctrl still running $1 s after $2"
}

long=(--max-steps 3000000 --hang-timeout 60 --show-output)
case $mode in
  many) args=(--strategy random --max-executions 1000000 "$target") ;;
  INT-mid | TERM-mid) args=("${long[@]}" "$target" 2000000 30) ;;
  INT-analysis) args=("${long[@]}" "$target" 2000000 0) ;;
  time-limit) args=("${long[@]}" --time-limit 3 "$target" 2000000 30) ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

start=$(now)
"$ctrl" attach --json "$workdir/report.json" --trace-dir "$workdir/traces" "${args[@]}" >"$out" 2>"$err" &
ctrl_pid=$!

case $mode in
  many)
    sleep 1
    kill -0 "$ctrl_pid" 2>/dev/null || { wait "$ctrl_pid"; fail "ctrl ended by itself (exit status $?) before the SIGINT"; }
    sent=$(now)
    kill -INT -- "-$ctrl_pid"
    wait_for_end 5 SIGINT
    ;;
  INT-mid | TERM-mid)
    wait_for_output "events done" 60 || fail "the execution did not get to its computation"
    sleep 0.5
    sent=$(now)
    if [ "$mode" = INT-mid ]; then kill -INT -- "-$ctrl_pid"; else kill -TERM "$ctrl_pid"; fi
    wait_for_end 1.5 "the signal"
    ;;
  INT-analysis)
    wait_for_output "computed" 60 || fail "the execution did not complete"
    sleep 0.2 # its ExecutionFinished is on its way; the analysis takes seconds
    sent=$(now)
    kill -INT -- "-$ctrl_pid"
    wait_for_end 1.5 SIGINT
    ;;
  time-limit)
    sent=$start
    wait_for_end 10 "its start"
    ;;
esac
wait "$ctrl_pid"
rc=$?
ended=$(now)
took=$(elapsed "$sent" "$ended")
echo "ctrl exited with status $rc, $took s after the stop was asked for"

summary=$(grep -E "^(no execution completed|[0-9]+ executions)" "$out" | tail -1)
case $mode in
  many)
    case $rc in
      0 | 1) ;;
      130) fail "ctrl was killed by SIGINT instead of stopping cleanly" ;;
      *) fail "exit status $rc after SIGINT, expected 0 or 1" ;;
    esac
    [ -n "$summary" ] || fail "ctrl printed no summary after SIGINT"
    ;;
  INT-mid | TERM-mid | time-limit)
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2 (no execution completed)"
    case $mode in
      INT-mid) why="SIGINT" ;;
      TERM-mid) why="SIGTERM" ;;
      time-limit)
        why="the time limit"
        at_most "$took" 4.5 || fail "ctrl took $took s with --time-limit 3"
        ;;
    esac
    [[ $summary == "no execution completed: nothing was checked"*"(interrupted by $why)" ]] ||
      fail "the summary does not say that nothing was checked because of $why: '$summary'"
    grep -q '"checked": false' "$workdir/report.json" || fail "the JSON report does not say \"checked\": false"
    [ "$(wc -l <"$err")" = 1 ] || fail "expected one line on stderr"
    ;;
  INT-analysis)
    [ "$rc" = 0 ] || fail "exit status $rc, expected 0"
    [[ $summary == *"exhaustive: no"*"(interrupted by SIGINT)" ]] ||
      fail "the summary does not say the exploration was interrupted: '$summary'"
    grep -q '"interrupted": true' "$workdir/report.json" || fail "the JSON report does not say \"interrupted\": true"
    ;;
esac

sleep 0.5
left=$(pgrep -f -- "$pattern")
if [ -n "$left" ]; then
  echo "processes still running $target after ctrl exited:"
  for pid in $left; do
    ps -o pid=,ppid=,stat=,args= -p "$pid"
  done
  for pid in $left; do
    kill -9 "$pid" 2>/dev/null
  done
  fail "target processes survived ctrl"
fi
echo "---- ctrl's output ----"
cat "$out" "$err"
echo "ok: ctrl stopped ($mode) with status $rc"
exit 0
