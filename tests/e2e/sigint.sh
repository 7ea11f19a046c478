#!/usr/bin/env bash
# Ctrl-C stops a long run of ctrl promptly: it exits 0 or 1 (not killed by the
# signal, no internal error), prints a summary and leaves no target process.
#
#   sigint.sh CTRL PROGRAM WORKDIR
#
# Runs ctrl attach on a copy of PROGRAM (a correct program, so that ctrl keeps
# running executions) in a process group of its own, and after a second sends
# SIGINT to that whole group, as a terminal does on Ctrl-C.
set -u
set -m # background jobs get their own process group and do not ignore SIGINT

if [ $# -ne 3 ]; then
  echo "usage: $0 CTRL PROGRAM WORKDIR" >&2
  exit 2
fi
ctrl=$1
program=$2
workdir=$3

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

"$ctrl" attach --strategy random --max-executions 1000000 \
  --json "$workdir/report.json" --trace-dir "$workdir/traces" "$target" >"$out" 2>"$err" &
ctrl_pid=$!
sleep 1
if ! kill -0 "$ctrl_pid" 2>/dev/null; then
  wait "$ctrl_pid"
  fail "ctrl ended by itself (exit status $?) before the SIGINT"
fi

kill -INT -- "-$ctrl_pid"
# Promptly: within 5 s.
for _ in $(seq 50); do
  kill -0 "$ctrl_pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$ctrl_pid" 2>/dev/null; then
  kill -9 -- "-$ctrl_pid" 2>/dev/null
  wait "$ctrl_pid" 2>/dev/null
  fail "ctrl still running 5 s after SIGINT"
fi
wait "$ctrl_pid"
rc=$?
echo "ctrl exited with status $rc after SIGINT"
case $rc in
  0 | 1) ;;
  130) fail "ctrl was killed by SIGINT instead of stopping cleanly" ;;
  *) fail "exit status $rc after SIGINT, expected 0 or 1" ;;
esac
if [ ! -s "$out" ] && [ ! -s "$err" ]; then
  fail "ctrl printed no summary after SIGINT"
fi

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
echo "ok: ctrl stopped on SIGINT with status $rc"
exit 0
