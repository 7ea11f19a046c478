#!/usr/bin/env bash
# A stepping session leaves no target process behind, whether it ends by
# `quit` in the middle of an execution (with checkpoints and an inspected
# execution around), by the end of its input, or by SIGINT/SIGTERM while it
# waits at the prompt.
#
#   leftovers.sh CTRL PROGRAM WORKDIR quit|eof|INT|TERM
set -u
set -m
ctrl=$1 program=$2 workdir=$3 mode=$4
rm -rf "$workdir" && mkdir -p "$workdir" || exit 1
# A private copy: its name finds the target's processes and nobody else's.
target="$workdir/stepping-target-$$-$RANDOM"
cp "$program" "$target" && chmod 755 "$target" || exit 1
target=$(realpath "$target")
out="$workdir/ctrl.out"
fail() {
  echo "FAIL: $*"
  echo "---- ctrl's output ----"
  cat "$out" 2>/dev/null
  exit 1
}
alive() { pgrep -f -- "$target" >/dev/null; }

case "$mode" in
  quit | eof)
    cmds="step\nstep\nbt T0\nprint transfers\n"
    [ "$mode" = quit ] && cmds="${cmds}quit\n"
    printf "$cmds" | timeout 60 "$ctrl" attach --interactive "$target" >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "ctrl exited with $rc, expected 0"
    grep -q "pthread_create -> T2" "$out" || fail "the steps did not run"
    ;;
  INT | TERM)
    fifo="$workdir/input"
    mkfifo "$fifo" || exit 1
    # The prompt waits on a pipe that stays open: the session is paused.
    sleep 60 >"$fifo" &
    holder=$!
    "$ctrl" attach --interactive "$target" <"$fifo" >"$out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do alive && break; sleep 0.05; done
    alive || fail "the target never started"
    sleep 0.5
    kill -"$mode" "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill "$holder" 2>/dev/null
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "ctrl did not end within 5 s of SIG$mode"; }
    ;;
  *)
    echo "usage: $0 CTRL PROGRAM WORKDIR quit|eof|INT|TERM" >&2
    exit 2
    ;;
esac
for _ in $(seq 40); do alive || break; sleep 0.05; done
if alive; then
  pgrep -af -- "$target"
  pkill -9 -f -- "$target"
  fail "target processes outlived ctrl"
fi
echo "ok: no target process left ($mode)"
