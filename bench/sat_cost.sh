#!/usr/bin/env bash
# --strategy sat beside dpor (issue 24) on SATCheck's CAS spinlock
# (bench/sat_spinlock.c) at growing sizes (lock/unlock pairs per thread):
# per size and strategy, the executions, whether the search finished
# (exhaustive), the wall time, and for sat its solver rounds, solver time,
# largest formula and goal coverage. Each run is limited to LIMIT seconds
# (default 120); a strategy stops growing once it did not finish.
#
#   bash bench/sat_cost.sh CTRL SPINLOCK_BINARY [LIMIT] [SIZES]
set -u
CTRL=$(realpath "$1"); PROG=$(realpath "$2"); LIMIT=${3:-120}; SIZES=${4:-"1 2 3 4 5 6 8 10"}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-6s %10s %10s %9s %7s %9s %14s %s\n' size mode executions exhaustive wall_s rounds solver_s largest_clauses goals
for strategy in dpor sat; do
  for n in $SIZES; do
    s=$(date +%s.%N)
    "$CTRL" attach --strategy $strategy --time-limit "$LIMIT" --json "$W/r.json" -- "$PROG" "$n" >/dev/null 2>&1
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
    printf '%-5s %-6s %10s %10s %9.2f %7s %9s %14s %s\n' "$n" "$strategy" "$total" "$x" "$(echo "$e - $s" | bc)" \
      "$rounds" "$ss" "$cl" "$goals"
    rm -f "$W/r.json"
    [ "$x" = True ] || break
  done
done
