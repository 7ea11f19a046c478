#!/usr/bin/env bash
# Finding the bugs of the buggy benchmark programs (bench/bugs, issue 13):
# for each program and each strategy, one `ctrl attach` stopped at the first
# bug, with limits, and a table of what it took, read from its JSON report.
#
#   bench/bug_hunt.sh BUILD_DIR [STRATEGY...]
#
# STRATEGY: dpor, random, pct2, pct3 (pct with --pct-depth 2 or 3), pos,
# pb1, pb2 (dpor with --preemption-bound 1 or 2: schedules in order of
# preemptions), default (no --strategy), or any other --strategy value.
# Default: dpor random pct2 pct3 pos; pct is
# skipped, with a note, when `ctrl attach --help` does not list it.
# Environment: CTRL (default BUILD_DIR/bin/ctrl: another ctrl to compare
# with, e.g. an older build), PROGRAMS (default: every bench/bugs program),
# MAX_EXECUTIONS (10000), TIME_LIMIT (seconds per run, 60), MAX_STEPS
# (10000), SEED (1). A program is bench/bugs' bug_NAME or, when there is no
# such binary, the sample NAME (e.g. PROGRAMS=shallow_bug_long).
#
# Columns: executions up to and including the first bug ("-": none within
# the limits, then "(n)" is how many ran), the run's seconds (--no-shrink:
# the time to the bug, not to a shrunk report), the executions cut by
# --max-steps, the alternatives fair scheduling of yields held back
# (analyses/FairYields.h; "-" for a ctrl without it), and how the run ended
# (bug kind, exhaustive, or the limit).
set -u
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [STRATEGY...]" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
shift
ctrl=${CTRL:-$build/bin/ctrl}
[ -x "$ctrl" ] || { echo "$0: $ctrl is not executable" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: jq is needed to read the JSON reports" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
strategies=("$@")
[ ${#strategies[@]} -gt 0 ] || strategies=(dpor random pct2 pct3 pos)
if [ -z "${PROGRAMS:-}" ]; then
  PROGRAMS=$(cd "$root/bench/bugs" && ls *.c | sed 's/\.c$//' | tr '\n' ' ')
fi
max_executions=${MAX_EXECUTIONS:-10000}
time_limit=${TIME_LIMIT:-60}
max_steps=${MAX_STEPS:-10000}
seed=${SEED:-1}

have_pct=0
"$ctrl" attach --help 2>&1 | grep -q 'pct' && have_pct=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-24s %-8s %12s %9s %6s %6s  %s\n' program strategy "to 1st bug" seconds cut held "ended"
for program in $PROGRAMS; do
  exe=$build/bin/bug_$program
  [ -x "$exe" ] || exe=$build/bin/$program
  [ -x "$exe" ] || { echo "$0: $exe is missing (build the bench targets)" >&2; exit 2; }
  for s in "${strategies[@]}"; do
    args=(--strategy "$s")
    case $s in
      pct*)
        if [ $have_pct = 0 ]; then
          printf '%-24s %-8s %s\n' "$program" "$s" "pct is not available in this ctrl: skipped"
          continue
        fi
        args=(--strategy pct --pct-depth "${s#pct}" --seed "$seed")
        ;;
      random | pos | dpor+probes) args+=(--seed "$seed") ;;
      default) args=(--seed "$seed") ;;
      pb*) args=(--strategy dpor --preemption-bound "${s#pb}") ;;
    esac
    json=$work/$program-$s.json
    rm -rf "$json" "$work/traces"
    out=$("$ctrl" attach "${args[@]}" --no-shrink --max-executions "$max_executions" --time-limit "$time_limit" \
      --max-steps "$max_steps" --json "$json" --trace-dir "$work/traces" "$exe" 2>&1)
    rc=$?
    if [ ! -s "$json" ]; then
      printf '%-24s %-8s %s\n' "$program" "$s" "no report (exit $rc): $(echo "$out" | tail -1)"
      continue
    fi
    total=$(jq '.executions.total' "$json")
    first=$(jq -r 'if (.bugs | length) > 0 then .bugs[0].execution else "-" end' "$json")
    secs=$(jq -r '.elapsed_seconds * 100 | round / 100' "$json")
    # Older reports do not have the key: the summary line says it.
    cut=$(jq -r '.executions.cut_by_max_steps // empty' "$json")
    [ -n "$cut" ] || cut=$(echo "$out" | grep -o '[0-9]* cut by --max-steps' | tail -1 | cut -d' ' -f1)
    cut=${cut:-0}
    held=$(jq -r 'if .fairness then .fairness.cuts + .fairness.blocked else "-" end' "$json")
    if [ "$first" != "-" ]; then
      ended=$(jq -r '.bugs[0].kind' "$json")
    elif [ "$(jq '.exhaustive' "$json")" = true ]; then
      ended="exhaustive, no bug"
    elif [ "$(jq '.fairness.exhaustive_fair // false' "$json")" = true ]; then
      ended="every fair schedule, no bug"
    elif [ "$(jq '.interrupted' "$json")" = true ]; then
      ended="time limit"
      first="- ($total)"
    elif [ "$total" -ge "$max_executions" ]; then
      ended="execution limit"
      first="- ($total)"
    else
      ended="search ended, not exhaustive, no bug"
      first="- ($total)"
    fi
    printf '%-24s %-8s %12s %9s %6s %6s  %s\n' "$program" "$s" "$first" "$secs" "$cut" "$held" "$ended"
  done
done
