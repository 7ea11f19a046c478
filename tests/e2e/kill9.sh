#!/usr/bin/env bash
# ctrl killed with SIGKILL in the middle of a long run leaves no target
# process behind.
#
#   kill9.sh CTRL PROGRAM WORKDIR [JOBS]
#
# JOBS (default 1) is ctrl's -j: with more, helper sessions (threads of ctrl
# with targets of their own) must leave nothing behind either.
# Runs ctrl attach on a copy of PROGRAM (a correct program, so that ctrl keeps
# running executions) under a unique path, checks that target processes
# appear, kills ctrl with SIGKILL, waits half a second and then looks for any
# process still running the copy (pgrep -f on its path, and /proc/*/exe).
set -u

if [ $# -ne 3 ] && [ $# -ne 4 ]; then
  echo "usage: $0 CTRL PROGRAM WORKDIR [JOBS]" >&2
  exit 2
fi
ctrl=$1
program=$2
workdir=$3
jobs=${4:-1}

rm -rf "$workdir"
mkdir -p "$workdir/traces" || exit 1
target="$workdir/kill9-target-$$-$RANDOM"
cp "$program" "$target" && chmod 755 "$target" || exit 1
target=$(realpath "$target")
# pgrep takes an extended regular expression: quote the path.
pattern=$(printf '%s' "$target" | sed 's/[][\.*^$(){}?+|]/\\&/g')
log="$workdir/ctrl.log"

# The pids of the processes running the copy, apart from ctrl itself (whose
# command line names it too) and zombies (which have neither a command line
# nor an executable any more).
targets() {
  {
    pgrep -f -- "$pattern"
    for exe in /proc/[0-9]*/exe; do
      if [ "$exe" -ef "$target" ]; then
        pid=${exe#/proc/}
        echo "${pid%/exe}"
      fi
    done 2>/dev/null
  } | sort -un | grep -vxE "$$|${ctrl_pid:-0}"
}

fail() {
  echo "FAIL: $*"
  echo "---- ctrl's output ----"
  cat "$log" 2>/dev/null
  exit 1
}

"$ctrl" attach -j "$jobs" --strategy random --max-executions 1000000 \
  --json "$workdir/report.json" --trace-dir "$workdir/traces" "$target" >"$log" 2>&1 &
ctrl_pid=$!

# Wait (up to 5 s) for a target process to exist: otherwise the check below
# would prove nothing.
seen=""
for _ in $(seq 500); do
  if ! kill -0 "$ctrl_pid" 2>/dev/null; then
    wait "$ctrl_pid"
    fail "ctrl ended by itself (exit status $?) before it could be killed"
  fi
  seen=$(targets)
  [ -n "$seen" ] && break
  sleep 0.01
done
[ -n "$seen" ] || { { kill -9 "$ctrl_pid"; wait "$ctrl_pid"; } 2>/dev/null; fail "no process running $target appeared within 5 s"; }
sleep 1
if ! kill -0 "$ctrl_pid" 2>/dev/null; then
  wait "$ctrl_pid"
  fail "ctrl ended by itself (exit status $?) before it could be killed"
fi

echo "target processes seen while ctrl ran: $(echo $seen)"
{ kill -9 "$ctrl_pid"; wait "$ctrl_pid"; } 2>/dev/null # (no "Killed" message)
sleep 0.5

left=$(targets)
if [ -n "$left" ]; then
  echo "processes still running $target after ctrl was killed:"
  for pid in $left; do
    ps -o pid=,ppid=,stat=,args= -p "$pid"
  done
  # Clean up after ctrl, one pid at a time.
  for pid in $left; do
    kill -9 "$pid" 2>/dev/null
  done
  fail "target processes survived ctrl's SIGKILL"
fi
echo "ok: no target process left after kill -9 of ctrl"
exit 0
