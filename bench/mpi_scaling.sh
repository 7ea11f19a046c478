#!/usr/bin/env bash
# ctrl attach --mpi at 1, 2, 4, ... ranks (issue 28): the wall time of one
# seeded exploration, its rate, and per rank the executions, idle fraction
# and steals (the report's parallel.ranks), beside -j 1 without MPI.
#   bash bench/mpi_scaling.sh BUILD_DIR PROGRAM EXECUTIONS "RANKS..." [STRATEGY]
# Ranks beyond the CPUs are oversubscribed (mpirun --oversubscribe): on a
# 2-CPU machine they show the coordination (idle time, steals, exact counts),
# not a speed-up, which two CPUs cannot give beyond 2x.
set -euo pipefail
build=$1 program=$2 n=$3 ranks=$4 strategy=${5:-random}
ctrl=$build/bin/ctrl
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary() {
  python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); e = j["executions"]; t = j["elapsed_seconds"]
ranks = (j.get("parallel") or {}).get("ranks") or []
per = "; ".join(f"r{k}: {r['executions']} ex, {100*r['idle_fraction']:.0f}% idle, {r['steals']} steals"
                for k, r in enumerate(ranks))
print(f"| {sys.argv[2]} | {e['total']} | {e['complete']} | {t:.2f} | {e['total']/t:,.0f} | {per} |")
PY
}
echo "| run | total | complete | seconds | executions/s | per rank |"
echo "|---|---|---|---|---|---|"
"$ctrl" attach -j 1 --strategy "$strategy" --max-executions "$n" --json "$work/j1.json" "$build/bin/$program" \
  >/dev/null 2>&1 || true
summary "$work/j1.json" "-j 1"
for r in $ranks; do
  mpirun "${root[@]}" --oversubscribe -np "$r" "$ctrl" attach --mpi --strategy "$strategy" --max-executions "$n" \
    --json "$work/r$r.json" "$build/bin/$program" >/dev/null 2>&1 || true
  summary "$work/r$r.json" "--mpi, $r ranks"
done
