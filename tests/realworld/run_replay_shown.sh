#!/usr/bin/env bash
# A trace recorded with --show-output replays with the command ctrl prints
# (issue 22, item 11). ffmpeg's start-up allocates about 8 KB more for a
# stdout or stderr that is a regular file than for /dev/null: a replay that
# discarded the output, as the recording had not, diverged at step 2 (every
# heap address moved). The trace keeps --show-output and the kinds of the
# descriptors; the replay shows the output when the recording did.
#
# Usage: run_replay_shown.sh CTRL WORKDIR -- PROGRAM ARGS...
# Exit status: 0 pass, 1 fail, 77 skip (PROGRAM is not installed).
set -u
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
  echo "usage: run_replay_shown.sh CTRL WORKDIR -- PROGRAM ARGS..." >&2
  exit 2
fi
ctrl=$1 work=$2
shift 3
command -v "$1" >/dev/null 2>&1 || { echo "SKIP: $1 is not installed"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
printf 'next 200\nsave %s/shown.ctrltrace\nquit\n' "$work" >commands
timeout -k 10 120 "$ctrl" attach --batch commands --show-output -- "$@" >record.out 2>record.err
rc=$?
[ $rc -eq 0 ] && [ -f shown.ctrltrace ] || { echo "FAIL: recording exited with $rc"; tail -n 20 record.out record.err; exit 1; }
timeout -k 10 120 "$ctrl" replay shown.ctrltrace >replay.out 2>replay.err
rc=$?
if [ $rc -ne 0 ] || grep -q diverged replay.out replay.err; then
  echo "FAIL: ctrl replay shown.ctrltrace exited with $rc"
  tail -n 5 replay.out replay.err
  exit 1
fi
echo "PASS: $(grep '^replay ' replay.out | tail -n 1)"
exit 0
