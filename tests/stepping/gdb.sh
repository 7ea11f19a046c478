#!/usr/bin/env bash
# gdb's own front end on a recorded bug (issue 10's gdb acceptance point):
# `ctrl replay --gdb 0 TRACE` serves the deadlock of deadlock_lock_order,
# `gdb -batch` runs gdb_session.gdb against it, and every expected line of
# the script (its "#   REGEX" comments) appears in gdb's output, in order.
# Then ctrl exits 0 after the detach and leaves no process behind.
#
#   gdb.sh CTRL PROGRAM WORKDIR
set -u
ctrl=$1 program=$2 workdir=$3
here=$(cd "$(dirname "$0")" && pwd)
script="$here/gdb_session.gdb"
rm -rf "$workdir" && mkdir -p "$workdir" || exit 1
cd "$workdir" || exit 1
fail() {
  echo "FAIL: $*"
  for f in attach.out server.err gdb.out; do
    echo "---- $f ----"
    cat "$f" 2>/dev/null
  done
  exit 1
}
command -v gdb >/dev/null || fail "gdb is not installed (Debian package gdb)"
# A private copy: its name finds the target's processes and nobody else's.
copy="$workdir/gdb-target-$$-$RANDOM"
cp "$program" "$copy" && chmod 755 "$copy" || exit 1
program=$(realpath "$copy")
"$ctrl" attach --trace-dir traces "$program" >attach.out 2>&1
[ $? -eq 1 ] || fail "ctrl attach did not find the deadlock"
trace=$(ls traces/*deadlock*.ctrltrace 2>/dev/null | head -1)
[ -n "$trace" ] || fail "no deadlock trace"

"$ctrl" replay --gdb 0 "$trace" >server.out 2>server.err &
server=$!
port=""
for _ in $(seq 200); do
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' server.err)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || fail "ctrl replay --gdb ended before listening"
  sleep 0.05
done
[ -n "$port" ] || { kill "$server"; fail "ctrl replay --gdb never said where it listens"; }
timeout 60 gdb -nx -batch -ex "target remote :$port" -x "$script" "$program" >gdb.out 2>&1
gdb_rc=$?
for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$server" 2>/dev/null; then
  kill -9 "$server"
  fail "ctrl did not end after gdb detached"
fi
wait "$server"
server_rc=$?
[ "$server_rc" -eq 0 ] || fail "ctrl replay --gdb exited with $server_rc, expected 0"
[ "$gdb_rc" -eq 0 ] || fail "gdb exited with $gdb_rc"

# The expected lines, in order.
line=1
while IFS= read -r regex; do
  found=$(tail -n +"$line" gdb.out | grep -n -m1 -E -- "$regex" | cut -d: -f1)
  [ -n "$found" ] || fail "no line matching /$regex/ after line $line of gdb's output"
  line=$((line + found))
done < <(sed -n 's/^#   //p' "$script")
for _ in $(seq 40); do pgrep -f -- "$program" >/dev/null || break; sleep 0.05; done
if pgrep -f -- "$program" >/dev/null; then
  pgrep -af -- "$program"
  fail "target processes outlived ctrl"
fi
echo "ok: gdb saw the threads, frames, a global, a breakpoint, reverse-stepi and monitor commands"
