#!/usr/bin/env bash
# A runner's long executions spread their threads over the CPUs the program
# may use, and every execution starts pinned to the runner's CPU again
# (agent/Rollback.h, spread_threads). samples/spread_affinity asserts what
# the kernel says about its threads' affinity at the start of each execution
# and after two workers made 4000 steps each.
#
#   spread_affinity.sh CTRL PROGRAM
#
# Exits 77 (skipped) when ctrl may use one CPU only.
set -u
ctrl=$1
program=$2
cpus=$(nproc)
if [ "$cpus" -lt 2 ]; then
  echo "skipped: one CPU"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
status=0
expect() {
  local what=$1 summary=$2
  shift 2
  out=$("$ctrl" attach --trace-dir "$work" "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^$summary"; then
    echo "FAIL: $what: ctrl exited $rc"
    printf '%s\n' "$out"
    status=1
  else
    echo "ok: $what"
  fi
}
# Pinned at every start, spread after 4096 steps: a rollback that did not
# pin them back fails the second execution's first assertion.
expect "long executions spread over $cpus CPUs, each starts on one" "8 executions (8 complete" \
  --strategy random --seed 3 --max-executions 8 "$program" 1 "$cpus"
expect "short executions stay on one CPU" "8 executions (8 complete" \
  --strategy random --seed 3 --max-executions 8 "$program" 1 1 100
# With helper sessions the other CPUs are theirs.
expect "-j 2: the runner stays on its CPU" "8 executions (8 complete" \
  -j 2 --max-executions 8 "$program" 1 1
# Executions in processes of their own are never pinned.
expect "--no-rollback: never pinned" "8 executions (8 complete" \
  --no-rollback --strategy random --seed 3 --max-executions 8 "$program" "$cpus" "$cpus"
exit $status
