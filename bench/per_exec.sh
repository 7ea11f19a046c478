#!/usr/bin/env bash
# What one steady-state execution costs, by role, in counts that a loaded
# machine does not change much (issue 27, item 1): CPU time, context
# switches, page faults and system calls per execution, for ctrl (the
# controller's process, all its threads) and the target (the fork server, the
# runner and the program's threads), on queue2 N=5/7 SC, faa N=7/8 SC and
# queue2 N=5/7 TSO (../shared/bench, built as ../shared/bench/side_by_side.sh
# builds them: inline atomics; TSO is -DMO=memory_order_relaxed).
#
#   bash bench/per_exec.sh [BUILD_DIR] [REPS]
# ROWS="queue2-sc faa-sc queue2-tso" picks rows (default all). The default
# --max-executions (100,000) would cut queue2 N=7 TSO with the default
# strategy's probes (46,311 classes and about as many probes): 1,000,000 here.
#
# Per execution = (large - medium) / (executions between them, probes
# included), so start-up cancels. Counts from one `perf stat` run: the
# totals (task-clock, context switches, page faults, raw_syscalls:sys_enter)
# and, by role, tracepoints filtered on the task's name (ctrl's tasks are
# "ctrl*", the target's are named after the program): sched:sched_switch
# (switches away from the role's tasks), exceptions:page_fault_user,
# raw_syscalls:sys_enter. CPU time by role: that run's task-clock split by
# the roles' shares of `perf record -e task-clock -c 100000` samples of a
# second run. Per-task sampling sees the runner's threads because they live
# across executions (recycled); it would miss short-lived threads
# (bench/breakdown.sh). REPS runs of each (default 1): the medians.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
reps=${2:-1}
ctrl=$build/bin/ctrl
shared=$root/../shared/bench
perf=${PERF:-perf}
[ -f "$shared/queue2.c" ] || { echo "bench/per_exec.sh: $shared/queue2.c is missing" >&2; exit 2; }
[ -x "$ctrl" ] || { echo "bench/per_exec.sh: no $ctrl (build first)" >&2; exit 2; }
"$perf" stat -x, -o /dev/null -e task-clock,raw_syscalls:sys_enter true 2>/dev/null ||
  { echo "bench/per_exec.sh: perf cannot count raw_syscalls:sys_enter here (needs root or perf_event_paranoid <= -1)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One instance: prints "executions cpu_ms cs pf sc ctrl_cpu ctrl_cs ctrl_pf ctrl_sc tgt_cpu tgt_cs tgt_pf tgt_sc".
measure() { # bin model
  local bin=$1 model=$2 i role
  for ((i = 0; i < reps; i++)); do
    # Each role's context switches (switches away from its tasks), user page
    # faults and system calls: tracepoints filtered on the task's name.
    local ev=(-e task-clock,context-switches,page-faults,raw_syscalls:sys_enter)
    for not in '' '!'; do
      ev+=(-e sched:sched_switch --filter "$not(prev_comm ~ \"ctrl*\")"
        -e exceptions:page_fault_user --filter "$not(comm ~ \"ctrl*\")"
        -e raw_syscalls:sys_enter --filter "$not(comm ~ \"ctrl*\")")
    done
    "$perf" stat -x, -o "$work/stat" "${ev[@]}" -- \
      "$ctrl" attach --model "$model" --max-executions 1000000 --json "$work/r.json" -- "$bin" >"$work/out" 2>&1 || true
    grep -q 'exhaustive: yes' "$work/out" || { echo "bench/per_exec.sh: $bin: $(cat "$work/out")" >&2; exit 1; }
    python3 -c "import json;print(json.load(open('$work/r.json'))['executions']['total'])" >"$work/n"
    grep -v '^#' "$work/stat" | grep . | cut -d, -f1 | tr '\n' ' ' >>"$work/counts"
    # CPU time by role: this run's task-clock split by the roles' shares of
    # the samples of another run (sampling adds its cost to every task).
    "$perf" record -q -c 100000 -e task-clock -o "$work/cpu.data" -- \
      "$ctrl" attach --model "$model" --max-executions 1000000 -- "$bin" >/dev/null 2>&1 || true
    "$perf" script -i "$work/cpu.data" -F comm 2>/dev/null |
      awk '{ n += ($1 ~ /^ctrl/); all++ } END { print n / all }' >>"$work/counts"
  done
  # counts: task-clock cs pf sysc | ctrl: cs pf sysc | target: cs pf sysc | ctrl's CPU share
  local c
  printf '%s' "$(cat "$work/n")"
  for c in 1 2 3 4; do printf ' %s' "$(awk -v c=$c '{ print $c }' "$work/counts" | median)"; done
  printf ' %s' "$(awk '{ print $1 * $11 }' "$work/counts" | median)"
  for c in 5 6 7; do printf ' %s' "$(awk -v c=$c '{ print $c }' "$work/counts" | median)"; done
  printf ' %s' "$(awk '{ print $1 * (1 - $11) }' "$work/counts" | median)"
  for c in 8 9 10; do printf ' %s' "$(awk -v c=$c '{ print $c }' "$work/counts" | median)"; done
  echo
  rm -f "$work/counts"
}

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-11s %7s | %8s %6s %6s %6s | %8s %6s %6s %6s | %8s %6s %6s %6s\n' "per exec" "execs" \
  "CPU us" "cs" "pf" "sysc" "ctrl us" "cs" "pf" "sysc" "tgt us" "cs" "pf" "sysc"
while read -r name src medium large model extra; do
  [ "$extra" = - ] && extra=""
  [[ " ${ROWS:-$name} " == *" $name "* ]] || continue
  for n in "$medium" "$large"; do
    # shellcheck disable=SC2086
    gcc -O2 -pthread -DN="$n" $extra -I"$shared" -o "$work/$src$n" "$shared/$src.c"
  done
  a=$(measure "$work/$src$medium" "$model")
  b=$(measure "$work/$src$large" "$model")
  echo "$a" "$b" | awk -v name="$name" '{
    d = $14 - $1
    printf "%-11s %7d | %8.1f %6.2f %6.2f %6.1f | %8.1f %6.2f %6.2f %6.1f | %8.1f %6.2f %6.2f %6.1f\n", name, d,
      ($15 - $2) * 1000 / d, ($16 - $3) / d, ($17 - $4) / d, ($18 - $5) / d,
      ($19 - $6) * 1000 / d, ($20 - $7) / d, ($21 - $8) / d, ($22 - $9) / d,
      ($23 - $10) * 1000 / d, ($24 - $11) / d, ($25 - $12) / d, ($26 - $13) / d }'
done <<'EOF'
queue2-sc queue2 5 7 sc -
faa-sc faa 7 8 sc -
queue2-tso queue2 5 7 tso -DMO=memory_order_relaxed
EOF
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "(per execution: CPU us task-clock; cs context switches; pf page faults (by role: user-mode ones); sysc system calls)"
