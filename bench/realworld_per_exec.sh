#!/usr/bin/env bash
# What one execution of a real program costs under two or more builds of
# ctrl, side by side (issue 27: "real programs no slower per execution than
# today"). For each program of tests/realworld that this machine has, each
# ctrl runs `--strategy random --seed 5` for SMALL and for LARGE executions
# under `perf stat`; per execution = (large - small) / (executions between
# them), so start-up (the loader's run, the libraries' analysis, the
# checkpoint) cancels. CPU is task-clock over every process (ctrl and the
# target); wall is the run's elapsed time. The ctrls alternate within each
# round, so that a change in the machine's load hits them alike; the medians
# of ROUNDS rounds are printed with each build's executions and steps (which
# must be equal: a fixed seed explores the same executions).
#
#   bash bench/realworld_per_exec.sh BUILD_DIR CTRL [CTRL...]
#   env: ROUNDS (default 3), SMALL and LARGE (default: per program, below),
#   PROGRAMS (default: all
#   of cxx_workers glib_pool omp_histogram rust_std urcu_config cxx20_sync
#   uv_work asio_strand pigz that exist)
#
# BUILD_DIR gives the programs (BUILD_DIR/bin/realworld_*,
# BUILD_DIR/tests/realworld/realworld_rust_std); each CTRL is a ctrl
# executable with its agent where its build puts it (e.g. a copy of an older
# build's bin/ and lib/).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,22p "$0" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
ctrls=()
for c in "$@"; do ctrls+=("$(realpath "$c")"); done
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v perf >/dev/null || { echo "bench/realworld_per_exec.sh: needs perf (Debian package linux-perf)" >&2; exit 2; }

"$build/bin/realworld_gen_text" 40000 "$work/in40k.txt"
"$build/bin/realworld_gen_text" 20000 "$work/in20k.txt"
# name: small large options -- program arguments (what
# tests/realworld/CMakeLists.txt runs; the counts give each run about a second)
declare -A spec=(
  [cxx_workers]="2 8 --max-steps 2000000 -- $build/bin/realworld_cxx_workers $work/in40k.txt"
  [glib_pool]="2 8 --max-steps 2000000 -- $build/bin/realworld_glib_pool $work/in40k.txt"
  [omp_histogram]="2 8 --max-steps 2000000 -- $build/bin/realworld_omp_histogram $work/in40k.txt"
  [rust_std]="2 8 -- $build/tests/realworld/realworld_rust_std $work/in20k.txt"
  [urcu_config]="20 200 -- $build/bin/realworld_urcu_config"
  [cxx20_sync]="20 200 -- $build/bin/realworld_cxx20_sync"
  [uv_work]="20 200 -- $build/bin/realworld_uv_work"
  [asio_strand]="20 200 -- $build/bin/realworld_asio_strand"
  [pigz]="5 40 -- /usr/bin/pigz -p 2 -c $work/in40k.txt"
)
order=(cxx_workers glib_pool omp_histogram rust_std urcu_config cxx20_sync uv_work asio_strand pigz)
[ -n "${PROGRAMS:-}" ] && read -r -a order <<<"$PROGRAMS"

# Prints "executions steps cpu_ms wall_ms" for one run.
run_one() { # ctrl n spec...
  local c=$1 n=$2
  shift 2
  local s e
  s=$(date +%s%N)
  (cd "$work" && perf stat -x, -e task-clock -o "$work/perf" -- "$c" attach --strategy random --seed 5 \
    --max-executions "$n" --json "$work/r.json" --trace-dir "$work/traces" "$@" >"$work/out" 2>&1) || true
  e=$(date +%s%N)
  local execs steps cpu
  read -r execs steps < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["executions"]["total"], d["steps"])' "$work/r.json" 2>/dev/null || echo "0 0")
  cpu=$(awk -F, '/task-clock/ { printf "%.0f", $1 }' "$work/perf")
  echo "${execs:-0} ${steps:-0} ${cpu:-0} $(((e - s) / 1000000))"
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }

printf '%-14s %-6s %-22s %-18s %-18s %s\n' program ctrl "executions (steps)" "CPU ms/execution" "wall ms/execution" "rounds (CPU)"
for p in "${order[@]}"; do
  [ -n "${spec[$p]:-}" ] || { echo "bench/realworld_per_exec.sh: unknown program $p" >&2; exit 2; }
  read -r -a args <<<"${spec[$p]}"
  small=${SMALL:-${args[0]}}
  large=${LARGE:-${args[1]}}
  args=("${args[@]:2}")
  prog=
  for ((k = 0; k < ${#args[@]}; k++)); do [ "${args[$k]}" = -- ] && prog=${args[$((k + 1))]}; done
  [ -x "$prog" ] || { printf '%-14s (not built here: %s)\n' "$p" "$prog"; continue; }
  declare -A cpu_r=() wall_r=() what=()
  for ((r = 0; r < rounds; r++)); do
    for i in "${!ctrls[@]}"; do
      read -r e1 _ c1 w1 < <(run_one "${ctrls[$i]}" "$small" "${args[@]}")
      read -r e2 s2 c2 w2 < <(run_one "${ctrls[$i]}" "$large" "${args[@]}")
      if ((e2 > e1)); then
        cpu_r[$i]+="$(awk -v a="$c1" -v b="$c2" -v n=$((e2 - e1)) 'BEGIN { printf "%.2f", (b - a) / n }') "
        wall_r[$i]+="$(awk -v a="$w1" -v b="$w2" -v n=$((e2 - e1)) 'BEGIN { printf "%.2f", (b - a) / n }') "
      fi
      what[$i]="$e2 ($s2)"
    done
  done
  for i in "${!ctrls[@]}"; do
    cm=$(tr ' ' '\n' <<<"${cpu_r[$i]:-}" | grep . | median)
    wm=$(tr ' ' '\n' <<<"${wall_r[$i]:-}" | grep . | median)
    printf '%-14s %-6s %-22s %-18s %-18s %s\n' "$p" "#$((i + 1))" "${what[$i]}" "$cm" "$wm" "${cpu_r[$i]:-}"
  done
  unset cpu_r wall_r what
done
echo "ctrls: ${ctrls[*]}; load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
