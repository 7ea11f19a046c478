#!/usr/bin/env bash
# What --model rc11 and c11 cost next to sc on the same programs (issue 11):
# the shared performance programs (queue2 and faa, seq_cst atomics, built as
# libatomic calls from ../shared/bench) and the C11 data-structure samples.
# For each program and model: the complete executions ctrl counts
# (Mazurkiewicz classes under sc, consistent execution graphs under
# rc11/c11), the executions run, the infeasible and redundant ones and their
# share, the wall time, and for the shared programs the steady-state rate
# between a medium and a large instance (complete executions per second,
# start-up cancelled out).
#
#   bash bench/c11_cost.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
ctrl=$build/bin/ctrl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=shared_programs.sh
source "$root/bench/shared_programs.sh" bench/c11_cost.sh

# One exhaustive run: prints "complete total infeasible redundant ms".
run() { # binary model
  local s e out
  s=$(date +%s%N)
  out=$("$ctrl" attach --model "$2" --max-executions 1000000 --trace-dir "$work/traces" \
    --json "$work/report.json" "$1" 2>"$work/stderr") || true
  e=$(date +%s%N)
  grep -q 'exhaustive: yes' <<<"$out" || {
    echo "bench/c11_cost.sh: $1 under $2 did not finish exhaustively: $(tail -n 1 <<<"$out") $(cat "$work/stderr")" >&2
    exit 1
  }
  python3 - "$work/report.json" "$(((e - s) / 1000000))" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
x = r["executions"]
m = r.get("model_counts") or {}
print(x["complete"], x["total"], m.get("infeasible", 0), m.get("redundant", 0), sys.argv[2])
EOF
}

printf '%-22s %-5s %9s %9s %11s %10s %7s %9s\n' program model complete run infeasible redundant ms 'exec/s'
for pair in queue2:5:7 faa:6:7; do
  IFS=: read -r prog small large <<<"$pair"
  build_one "${prog}_$small" "$prog" "$small"
  build_one "${prog}_$large" "$prog" "$large"
  for model in sc rc11 c11; do
    read -r c1 t1 i1 r1 ms1 <<<"$(run "$work/${prog}_$small" "$model")"
    read -r c2 t2 i2 r2 ms2 <<<"$(run "$work/${prog}_$large" "$model")"
    rate=$(awk -v c1="$c1" -v c2="$c2" -v a="$ms1" -v b="$ms2" 'BEGIN { printf "%.0f", (b > a) ? (c2 - c1) * 1000 / (b - a) : 0 }')
    printf '%-22s %-5s %9s %9s %11s %10s %7s %9s\n' "$prog N=$large" "$model" "$c2" "$t2" \
      "$i2 ($((i2 * 100 / t2))%)" "$r2 ($((r2 * 100 / t2))%)" "$ms2" "$rate"
  done
done
for sample in chase_lev_deque_fixed spsc_queue_fixed mcs_lock_fixed linux_rwlock_fixed seqlock_fixed; do
  for model in sc rc11 c11; do
    read -r c t i r ms <<<"$(run "$build/bin/c11_$sample" "$model")"
    printf '%-22s %-5s %9s %9s %11s %10s %7s %9s\n' "$sample" "$model" "$c" "$t" \
      "$i ($((i * 100 / t))%)" "$r ($((r * 100 / t))%)" "$ms" -
  done
done
