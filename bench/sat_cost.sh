#!/usr/bin/env bash
# --strategy sat beside dpor (issue 24) on SATCheck's benchmarks
# (bench/sat_*.c: spinlock, dekker, seqlock, rwlock, msqueue) at growing
# sizes (operations per thread). Per program, strategy and size: the
# executions, whether the search finished (exhaustive), the wall time, and
# for sat its solver rounds, solver time, largest formula and goal
# coverage. Each run is limited to LIMIT seconds (default 120); a strategy
# stops growing on a program once it did not finish. Then a summary per
# program: the largest size each strategy finished within the limit.
#
#   bash bench/sat_cost.sh CTRL BINDIR [LIMIT] [SIZES] [PROGRAMS] [MODEL]
#
# BINDIR holds bench_sat_PROGRAM (the build's bin/). MODEL: sc (default) or tso.
# STRATEGIES (environment): the strategies to run, default "dpor sat".
set -u
CTRL=$(realpath "$1"); BIN=$(realpath "$2"); LIMIT=${3:-120}; SIZES=${4:-"1 2 3 4 5 6 8 10 15 20 25 30 40 50"}
PROGRAMS=${5:-"spinlock dekker seqlock rwlock msqueue"}; MODEL=${6:-sc}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); limit ${LIMIT} s per run; model $MODEL"
printf '%-9s %-5s %-5s %10s %10s %9s %7s %9s %14s %s\n' program size mode executions exhaustive wall_s rounds solver_s \
  largest_clauses goals
SUMMARY=""
for program in $PROGRAMS; do
  for strategy in ${STRATEGIES:-dpor sat}; do
    best="-"
    for n in $SIZES; do
      s=$(date +%s.%N)
      "$CTRL" attach --strategy $strategy --model "$MODEL" --time-limit "$LIMIT" --max-executions 1000000000 --json "$W/r.json" -- \
        "$BIN/bench_sat_$program" "$n" >/dev/null 2>&1
      e=$(date +%s.%N)
      read -r total x rounds ss cl goals < <(python3 - "$W/r.json" <<'PY' 2>/dev/null || echo "? ? ? ? ? ?"
import json, sys
j = json.load(open(sys.argv[1]))
s = j.get("solver")
if s:
    r = s["rounds"]
    print(j["executions"]["total"], j["exhaustive"], len(r), round(sum(x["seconds"] for x in r), 2),
          max([x["clauses"] for x in r] or [0]), f'{s["goals_covered"]}/{s["goals_known"]}')
else:
    print(j["executions"]["total"], j["exhaustive"], "-", "-", "-", "-")
PY
)
      wall=$(echo "$e - $s" | bc)
      printf '%-9s %-5s %-5s %10s %10s %9.2f %7s %9s %14s %s\n' "$program" "$n" "$strategy" "$total" "$x" "$wall" \
        "$rounds" "$ss" "$cl" "$goals"
      rm -f "$W/r.json"
      [ "$x" = True ] || break
      best="$n ($total executions, solver ${ss} s, wall $(printf %.1f "$wall") s)"
    done
    SUMMARY+="| $program | $strategy | $best |"$'\n'
  done
done
echo
echo "| program | strategy | largest size finished in ${LIMIT} s (executions, solver time, wall) |"
echo "|---|---|---|"
printf '%s' "$SUMMARY"
