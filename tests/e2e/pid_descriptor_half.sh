#!/usr/bin/env bash
# The target's pid equal to the top half of its main thread's descriptor
# address (ctrl runs it without address randomisation: 0x7fff'xxxxxxxx, so
# pid 32767). Its tid then also matches the high half of the descriptor's
# pointers to itself, which the agent once took for libc's tid word: the
# kernel then wrote recycled threads' tids into those pointers and the first
# thread-local access through them crashed (a false SIGSEGV "bug").
#
#   pid_descriptor_half.sh CTRL PROGRAM
#
# PROGRAM is samples/pid_descriptor_half (prints its pid and that half).
# Steers the pid with /proc/sys/kernel/ns_last_pid; exits 77 (skipped) when
# it cannot (not writable, pid_max too small, or other processes keep taking
# the pid first).
set -u
ctrl=$1
program=$2
last_pid=/proc/sys/kernel/ns_last_pid
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

first=$("$ctrl" attach --show-output --max-executions 1 "$program" 2>&1) || { echo "$first"; exit 1; }
want=$(printf '%s\n' "$first" | sed -n 's/^pid=[0-9]* descriptor_high=\([0-9]*\)$/\1/p' | head -1)
if [ -z "$want" ]; then
  echo "the program printed no descriptor address:"
  printf '%s\n' "$first"
  exit 1
fi
if [ ! -w "$last_pid" ] || [ "$(cat /proc/sys/kernel/pid_max)" -le "$want" ]; then
  echo "skipped: cannot give a process pid $want here"
  exit 77
fi
# ctrl itself and its own processes take a few pids before the target's.
for round in $(seq 1 10); do
  for k in $(seq 1 16); do
    echo $((want - k)) > "$last_pid" 2>/dev/null || { echo "skipped: $last_pid refused a write"; exit 77; }
    out=$("$ctrl" attach --show-output "$program" 2>&1)
    rc=$?
    pid=$(printf '%s\n' "$out" | sed -n 's/^pid=\([0-9]*\) .*/\1/p' | head -1)
    [ "$pid" = "$want" ] || continue
    if [ $rc -ne 0 ]; then
      echo "FAIL: the target with pid $want: ctrl exited $rc"
      printf '%s\n' "$out"
      exit 1
    fi
    echo "the target with pid $want: ctrl exited 0 (round $round, ns_last_pid $((want - k)))"
    exit 0
  done
done
echo "skipped: no run's target got pid $want (other processes took it)"
exit 77
