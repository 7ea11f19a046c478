#!/usr/bin/env bash
# gdb's own front end on ctrl's gdb server, one gdb script per behaviour
# (issue 25, item 6): `gdb -batch` runs SCRIPT against `ctrl replay --gdb 0`
# of the bug `ctrl attach` finds in PROGRAM (MODE replay) or against
# `ctrl attach --gdb 0 PROGRAM` (MODE attach). Every "#   REGEX" comment of
# the script must match a line of gdb's output, in order; no line may match
# a "#!  REGEX" comment. With INTERRUPT set, gdb gets a SIGINT (what Ctrl-C
# does: gdb sends the interrupt byte) once its output has a line matching
# INTERRUPT. Then ctrl exits 0 after gdb detaches and leaves no process.
#
#   gdb_path.sh CTRL PROGRAM WORKDIR SCRIPT replay|attach [INTERRUPT]
set -u
ctrl=$1 program=$2 workdir=$3 script=$4 mode=$5 interrupt=${6:-}
rm -rf "$workdir" && mkdir -p "$workdir" || exit 1
cd "$workdir" || exit 1
fail() {
  echo "FAIL: $*"
  for f in attach.out server.err gdb.out; do
    echo "---- $f ----"
    tail -80 "$f" 2>/dev/null
  done
  pkill -9 -f -- "$program" 2>/dev/null
  exit 1
}
command -v gdb >/dev/null || fail "gdb is not installed (Debian package gdb)"
# A private copy: its name finds the target's processes and nobody else's.
copy="$workdir/gdb-target-$$-$RANDOM"
cp "$program" "$copy" && chmod 755 "$copy" || exit 1
program=$(realpath "$copy")
if [ "$mode" = replay ]; then
  "$ctrl" attach --trace-dir traces "$program" >attach.out 2>&1
  [ $? -eq 1 ] || fail "ctrl attach found no bug"
  trace=$(ls traces/*.ctrltrace 2>/dev/null | head -1)
  [ -n "$trace" ] || fail "no trace"
  "$ctrl" replay --gdb 0 "$trace" >server.out 2>server.err &
else
  "$ctrl" attach --gdb 0 "$program" >server.out 2>server.err &
fi
server=$!
port=""
for _ in $(seq 400); do
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' server.err)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || fail "ctrl --gdb ended before listening"
  sleep 0.05
done
[ -n "$port" ] || { kill "$server"; fail "ctrl --gdb never said where it listens"; }
timeout 90 gdb -nx -batch -ex "target remote :$port" -x "$script" "$program" >gdb.out 2>&1 &
gdb_pid=$!
if [ -n "$interrupt" ]; then
  for _ in $(seq 600); do
    grep -q -E -- "$interrupt" gdb.out && break
    kill -0 "$gdb_pid" 2>/dev/null || break
    sleep 0.05
  done
  grep -q -E -- "$interrupt" gdb.out || fail "gdb's output never matched /$interrupt/"
  # timeout(1) runs gdb as its child: the SIGINT goes to gdb itself.
  pkill -INT -P "$gdb_pid" -x gdb || fail "no gdb to interrupt"
fi
wait "$gdb_pid"
gdb_rc=$?
for _ in $(seq 200); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$server" 2>/dev/null; then
  kill -9 "$server"
  fail "ctrl did not end after gdb detached"
fi
wait "$server"
server_rc=$?
[ "$gdb_rc" -eq 0 ] || fail "gdb exited with $gdb_rc"
[ "$server_rc" -eq 0 ] || fail "ctrl --gdb exited with $server_rc, expected 0"

line=1
while IFS= read -r regex; do
  found=$(tail -n +"$line" gdb.out | grep -n -m1 -E -- "$regex" | cut -d: -f1)
  [ -n "$found" ] || fail "no line matching /$regex/ after line $line of gdb's output"
  line=$((line + found))
done < <(sed -n 's/^#   //p' "$script")
while IFS= read -r regex; do
  if grep -n -E -- "$regex" gdb.out; then fail "a line of gdb's output matches /$regex/"; fi
done < <(sed -n 's/^#!  //p' "$script")
for _ in $(seq 40); do pgrep -f -- "$program" >/dev/null || break; sleep 0.05; done
if pgrep -f -- "$program" >/dev/null; then
  pgrep -af -- "$program"
  fail "target processes outlived ctrl"
fi
echo "ok: $(basename "$script")"
