#!/usr/bin/env bash
# A bug's trace replays although a file the program inherited open for
# writing has grown since the run: the agent keeps a copy of such a file
# at the checkpoint (agent/FileState.cpp), and when that copy was mapped
# among the program's mappings its size moved the recycled threads' stacks,
# so the replay diverged on the address of a variable on a thread's stack
# (seen with ctest's own log, inherited by every test and growing).
#
#   inherited_file_replay.sh CTRL PROGRAM [CTRL ARGS...]
#
# The rollback's copies of the tracked memory (agent/MemorySnapshot.cpp),
# whose size follows that copy, moved a mapping made after the checkpoint
# in the same way (a Go runtime's structures; samples/mapped_after_checkpoint).
#
# PROGRAM must have a bug (ctrl exits 1) whose trace names an address on a
# thread's stack (samples/c11 mcs_lock_buggy under --model rc11) or in a
# mapping made after the checkpoint (samples/mapped_after_checkpoint).
set -u
ctrl=$1
program=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

head -c 300000 /dev/zero > inherited.log
"$ctrl" attach "$@" --trace-dir traces "$program" 7<>inherited.log > run.txt 2>&1
rc=$?
if [ $rc -ne 1 ]; then
  echo "FAIL: ctrl attach exited $rc, expected 1 (a bug)"
  cat run.txt
  exit 1
fi
trace=$(ls traces/*.ctrltrace 2>/dev/null | head -1)
if [ -z "$trace" ]; then
  echo "FAIL: no trace saved"
  cat run.txt
  exit 1
fi
# The file grows by more than a megabyte before the replay.
head -c 1200000 /dev/zero >> inherited.log
"$ctrl" replay "$trace" 7<>inherited.log > replay.txt 2>&1
rc=$?
if [ $rc -ne 1 ]; then
  echo "FAIL: ctrl replay exited $rc, expected 1 (the bug again)"
  cat replay.txt
  exit 1
fi
echo "the trace replays with the inherited file grown from 300000 to 1500000 bytes"
