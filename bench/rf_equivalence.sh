#!/usr/bin/env bash
# --equivalence rf beside mazurkiewicz (issue 23) on the shared programs
# queue2 and faa, and on samples/rf_writers_reader (where they differ): per
# instance and equivalence, the complete executions and the wall time of
# `ctrl attach --strategy dpor`, RUNS times (default 2), plus Nidhugg's
# --sc and --sc --rf when its binary is given (not part of the project).
#
#   bash bench/rf_equivalence.sh CTRL SHARED_BENCH_DIR [RUNS] [NIDHUGG]
#
# Programs are built into a temporary folder (gcc -O2 -pthread).
set -u
CTRL=$(realpath "$1"); SRC=$(realpath "$2"); RUNS=${3:-2}; NIDHUGG=${4:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
INSTANCES="queue2 5
queue2 7
faa 5
faa 6
rf_writers_reader 4"
while read -r src n; do
  if [ "$src" = rf_writers_reader ]; then
    gcc -O2 -pthread -o "$W/${src}_$n" "$HERE/samples/$src.c" || exit 2
  else
    gcc -O2 -pthread -DN=$n -I"$SRC" -o "$W/${src}_$n" "$SRC/$src.c" || exit 2
    if [ -n "$NIDHUGG" ]; then
      clang-14 -S -emit-llvm -g -O2 -DN=$n -I"$SRC" -o "$W/${src}_$n.ll" "$SRC/$src.c" &&
        "$NIDHUGG" --sc -transform "$W/${src}_$n.t.ll" "$W/${src}_$n.ll" >/dev/null 2>&1
    fi
  fi
done <<< "$INSTANCES"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %-14s %-4s %10s %9s %s\n' instance mode run complete wall_s exhaustive
for ((r = 1; r <= RUNS; r++)); do
  while read -r src n; do
    id=${src}_$n
    for eq in mazurkiewicz rf; do
      s=$(date +%s.%N)
      timeout 600 "$CTRL" attach --strategy dpor --equivalence $eq --json "$W/r.json" -- "$W/$id" >/dev/null 2>&1
      e=$(date +%s.%N)
      read -r c x < <(python3 -c "import json;j=json.load(open('$W/r.json'));print(j['executions']['complete'],j['exhaustive'])" 2>/dev/null || echo "? ?")
      printf '%-22s %-14s %-4s %10s %9.2f %s\n' "$id" "ctrl $eq" "$r" "$c" "$(echo "$e - $s" | bc)" "$x"
      rm -f "$W/r.json"
    done
    if [ -n "$NIDHUGG" ] && [ -f "$W/$id.t.ll" ]; then
      for m in "--sc" "--sc --rf"; do
        s=$(date +%s.%N)
        c=$("$NIDHUGG" "$W/$id.t.ll" $m 2>&1 | grep -oE 'Trace count: [0-9]+' | grep -oE '[0-9]+$')
        e=$(date +%s.%N)
        printf '%-22s %-14s %-4s %10s %9.2f\n' "$id" "nidhugg ${m// /}" "$r" "${c:-?}" "$(echo "$e - $s" | bc)"
      done
    fi
  done <<< "$INSTANCES"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
