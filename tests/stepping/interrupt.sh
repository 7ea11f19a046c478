#!/usr/bin/env bash
# Ctrl-C during a long `continue` stops it between two steps; the session
# goes on from there (`threads`, `step`), and `quit` ends it cleanly with
# no target process left. SIGTERM during a `continue` ends the session.
#
#   interrupt.sh CTRL PROGRAM WORKDIR INT|TERM
# PROGRAM: bench/stepping_long.c (about 266,000 steps: a continue takes
# seconds, one decision at a time).
set -u
set -m
ctrl=$1 program=$2 workdir=$3 mode=$4
rm -rf "$workdir" && mkdir -p "$workdir" || exit 1
target="$workdir/interrupt-target-$$-$RANDOM"
cp "$program" "$target" && chmod 755 "$target" || exit 1
target=$(realpath "$target")
out="$workdir/ctrl.out"
fifo="$workdir/input"
mkfifo "$fifo" || exit 1
fail() {
  echo "FAIL: $*"
  echo "---- ctrl's output ----"
  tail -40 "$out" 2>/dev/null
  pkill -9 -f -- "$target"
  exit 1
}
alive() { pgrep -f -- "$target" >/dev/null; }

exec 7<>"$fifo"  # kept open: the prompt waits for more input
"$ctrl" attach --interactive "$target" <"$fifo" >"$out" 2>&1 &
pid=$!
echo "continue" >&7
for _ in $(seq 200); do grep -q "^ *200  T" "$out" 2>/dev/null && break; sleep 0.05; done
grep -q "^ *200  T" "$out" || fail "the continue did not get to step 200"
kill -"$mode" "$pid"
if [ "$mode" = INT ]; then
  for _ in $(seq 100); do grep -q "interrupted by Ctrl-C at step" "$out" && break; sleep 0.05; done
  grep -q "interrupted by Ctrl-C at step [0-9]*" "$out" || fail "Ctrl-C did not stop the continue"
  grep -q "end at step" "$out" && fail "the continue ran to the end"
  printf 'threads\nstep\nquit\n' >&7
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  wait "$pid"
  rc=$?
  [ $rc -eq 0 ] || fail "ctrl exited with $rc after quit, expected 0"
  grep -q "T1 (tid [0-9]*): " "$out" || fail "threads after the interrupt listed nothing"
else
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$pid" 2>/dev/null && fail "ctrl did not end within 5 s of SIGTERM"
  wait "$pid"
  rc=$?
  [ $rc -eq 2 ] || fail "ctrl exited with $rc after SIGTERM, expected 2"
  grep -q "interrupted by SIGTERM" "$out" || fail "no word of the SIGTERM"
fi
exec 7>&-
for _ in $(seq 40); do alive || break; sleep 0.05; done
alive && fail "target processes outlived ctrl"
echo "ok: $mode during a continue"
