#!/usr/bin/env bash
# --model ra (issue 23) on the TRACER paper's synthetic and parameterised
# benchmarks (samples/ra: N_writers_a_reader, Redundant_co, Sigma,
# Control_flow, Exponential_bug), at the
# sizes of its Tables 4 and 5, beside the paper's TRACER counts, and the same
# programs under rc11 at small sizes (one execution per coherence order).
# Each row is run twice; prints executions (complete consistent /
# run / infeasible / redundant) and both wall times.
#
#   bash bench/ra_cost.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
ctrl=$build/bin/ctrl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One exhaustive run: prints "consistent total infeasible redundant ms".
run() { # model program size
  local s e out
  s=$(date +%s%N)
  out=$("$ctrl" attach --model "$1" --max-executions 10000000 --trace-dir "$work/traces" \
    --json "$work/report.json" "$build/bin/$2" "$3" 2>"$work/stderr") || true
  e=$(date +%s%N)
  grep -q 'exhaustive: yes' <<<"$out" || {
    echo "bench/ra_cost.sh: $2 $3 under $1 did not finish: $(tail -n 1 <<<"$out") $(cat "$work/stderr")" >&2
    exit 1
  }
  python3 - "$work/report.json" "$(((e - s) / 1000000))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r.get("model_counts") or {}
print(m.get("consistent", 0), r["executions"]["total"], m.get("infeasible", 0), m.get("redundant", 0), sys.argv[2])
PY
}

printf '%-26s %-5s %9s %9s %8s %8s %8s %8s %9s\n' program model consistent run infeas redund 'ms run1' 'ms run2' 'TRACER'
row() { # model program size paper
  read -r c t i r ms1 <<<"$(run "$1" "$2" "$3")"
  read -r _ _ _ _ ms2 <<<"$(run "$1" "$2" "$3")"
  printf '%-26s %-5s %9s %9s %8s %8s %8s %8s %9s\n' "$2($3)" "$1" "$c" "$t" "$i" "$r" "$ms1" "$ms2" "$4"
}
for n in 7 8 9 10; do row ra n_writers_a_reader "$n" $((n + 1)); done
for n in 5 10 15 20; do row ra redundant_co "$n" $((3 * n * n + 3 * n + 1)); done
row ra sigma 5 120
row ra sigma 6 720
row ra sigma 7 5040
row ra sigma 8 40320
for n in 6 8 10 12; do row ra control_flow "$n" $(((1 << n) + 2 * n + 1)); done
row ra exponential_bug 6 15601
row ra exponential_bug 7 22841
row ra exponential_bug 8 32313
row ra exponential_bug 9 44428
# One execution per coherence order (and reads-from): rc11 at small sizes.
for n in 3 4 5 6; do row rc11 n_writers_a_reader "$n" -; done
for n in 2 3; do row rc11 redundant_co "$n" -; done
for n in 4 5; do row rc11 sigma "$n" -; done
