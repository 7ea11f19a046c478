#!/usr/bin/env bash
# What --mpi and --state/--resume refuse (exit 2, one line saying why, no
# MPI started): the searches not partitioned across ranks or not saved yet.
#
#   refusals.sh CTRL PROGRAM WORKDIR
set -u
ctrl=$1 program=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failed=0
# expect_refusal PATTERN ARGS...: exit 2 and PATTERN on stderr.
expect_refusal() {
  local pattern=$1
  shift
  "$ctrl" attach "$@" "$program" >out 2>err
  local status=$?
  if [ "$status" -ne 2 ] || ! grep -qE -- "$pattern" err; then
    echo "FAIL: ctrl attach $* exited $status (expected 2 and /$pattern/):"
    cat err
    failed=1
  else
    echo "ok: ctrl attach $*: $(head -1 err)"
  fi
}
# Built without MPI, every --mpi says so instead.
if "$ctrl" attach --mpi --strategy random --max-executions 1 "$program" 2>&1 | grep -q "built without MPI"; then
  expect_refusal "built without MPI" --mpi --strategy dpor
else
  expect_refusal "--strategy sat runs on one machine" --mpi --strategy sat
  expect_refusal "this search runs on one machine" --mpi --strategy dpor --model c11
  expect_refusal "this search runs on one machine" --mpi --model rc11
  expect_refusal "this search runs on one machine" --mpi --strategy dpor --preemption-bound 1
fi
expect_refusal "--state saves the frontier .* not of --strategy dpor\+probes" --state s
expect_refusal "--state saves the frontier .* not of this dpor search" --strategy dpor --preemption-bound 1 --state s
expect_refusal "--state saves the frontier of --strategy dpor with -j 1 only" --strategy dpor -j 2 --state s
expect_refusal "--resume saves the frontier of --strategy dpor with -j 1 only" --strategy dpor -j 2 --resume s
exit $failed
