#!/usr/bin/env bash
# ctrl's exploration rate on the shared performance programs
# (../shared/bench next to the project: queue2 and faa, built here from
# there), next to the figures the in-process tools were measured at
# (../shared/bench/README.md). For each program and model: the classes
# (complete executions) and wall time of a medium and a large instance, and
# the steady-state rate between them, complete executions per second, so
# that start-up cancels out. Issue 12 compares against these.
#
# A second table gives, per steady-state execution (large minus medium
# instance, divided by the executions between them), what `perf stat` counts
# over the whole ctrl run (ctrl, the fork server and every execution: perf
# follows children): CPU time (task-clock), page faults, context switches,
# and processes and threads created (the task:task_newtask tracepoint, split
# by CLONE_THREAD in its clone_flags); beside them the thread hand-offs of
# the executions themselves (ctrl's JSON report, `handoffs`), which issue 12
# bounds context switches by. Without perf, or where it may not count these
# events (perf_event_paranoid, no tracefs), those columns say n/a; hand-offs
# come from ctrl and are always there.
#
#   bash bench/anchors.sh [BUILD_DIR] [REPS]
# REPS: timed runs of each instance, the median time is taken (default 1);
# then one more run under perf for the counts. PERF=/path/to/perf picks
# perf, PERF= (empty) turns the counts off.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
reps=${2:-1}
ctrl=$build/bin/ctrl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=shared_programs.sh
source "$root/bench/shared_programs.sh" bench/anchors.sh

# Which perf events can be counted here: the software counters, and the
# tracepoint that counts every task created (fork, vfork, clone, clone3).
perf=${PERF-$(command -v perf || true)}
perf_events=()
newtask=no
if [ -n "$perf" ] && "$perf" stat -x, -o /dev/null -e task-clock,page-faults,context-switches true 2>/dev/null; then
  perf_events=(-e task-clock,page-faults,context-switches)
  if "$perf" stat -x, -o /dev/null -e task:task_newtask true 2>/dev/null; then
    newtask=yes
    perf_events+=(-e task:task_newtask -e task:task_newtask --filter 'clone_flags & 0x10000')
  fi
fi

# One value of perf's CSV output (-x,): the count of the nth line naming the
# event, or n/a when it was not counted.
perf_value() { # file event [nth]
  awk -F, -v ev="$2" -v nth="${3:-1}" '$3 == ev && ++seen == nth { v = $1 }
    END { if (v ~ /^[0-9.]+$/) print v; else print "n/a" }' "$1"
}

# One `ctrl attach` of an instance, exhaustive, with its JSON report in
# $work/report.json; prints ctrl's summary line.
attach() { # binary model [command to run ctrl under...]
  local bin=$1 model=$2 out
  shift 2
  # ctrl's notes on stderr (executions rolled back, ...) only if it fails.
  out=$("$@" "$ctrl" attach --model "$model" --max-executions 1000000 --trace-dir "$work/traces" \
    --json "$work/report.json" "$work/$bin" 2>"$work/stderr") || true
  grep -q 'exhaustive: yes' <<<"$out" || {
    echo "bench/anchors.sh: $bin under $model did not finish exhaustively: $out $(cat "$work/stderr")" >&2
    exit 1
  }
  tail -n 1 <<<"$out"
}

# Prints one line for one instance: "classes milliseconds total handoffs
# cpu_ms page_faults context_switches processes threads" (n/a where perf did
# not count). The time is the median of REPS runs without perf (counting
# every task's events slows a run by 5-15%); the counts come from one more
# run under `perf stat`.
measure() { # binary model
  local times=() out s e classes total handoffs cpu=n/a pf=n/a cs=n/a procs=n/a threads=n/a tasks
  for _ in $(seq "$reps"); do
    s=$(date +%s%N)
    out=$(attach "$1" "$2" env)
    e=$(date +%s%N)
    times+=($(((e - s) / 1000000)))
  done
  classes=$(sed -n 's/^\([0-9]*\) executions (\([0-9]*\) complete.*/\2/p' <<<"$out")
  total=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["executions"]["total"])' "$work/report.json")
  handoffs=$(sed -n 's/^ *"handoffs": \([0-9]*\).*/\1/p' "$work/report.json")
  if [ ${#perf_events[@]} -gt 0 ]; then
    rm -f "$work/stat"
    attach "$1" "$2" "$perf" stat -x, -o "$work/stat" "${perf_events[@]}" -- >/dev/null
    cpu=$(perf_value "$work/stat" task-clock)
    pf=$(perf_value "$work/stat" page-faults)
    cs=$(perf_value "$work/stat" context-switches)
    if [ "$newtask" = yes ]; then
      tasks=$(perf_value "$work/stat" task:task_newtask 1)
      threads=$(perf_value "$work/stat" task:task_newtask 2)
      [ "$tasks" != n/a ] && [ "$threads" != n/a ] && procs=$((tasks - threads))
    fi
  fi
  echo "$classes $(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "${total:-n/a} ${handoffs:-n/a} $cpu $pf $cs $procs $threads"
}

# (large - medium) / executions between them, or n/a.
per_execution() { # medium large executions digits
  awk -v a="$1" -v b="$2" -v n="$3" -v d="$4" 'BEGIN {
    if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || n <= 0) print "n/a"; else printf "%.*f", d, (b - a) / n }'
}

# program, medium N, large N, anchors (GenMC / Nidhugg / CDSChecker, complete executions/s).
rows=(
  "queue2 5 7 sc|35k / 11.1k / 8.0k"
  "faa 7 8 sc|2.9k / 6.5k / 6.0k"
  "queue2 5 7 tso|38k / 10.0k / n/a"
  "faa 7 8 tso|n/a"
)
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %-18s %-18s %-14s %s\n' "program, model" "medium: classes, ms" "large: classes, ms" "ctrl, exec/s" \
  "GenMC / Nidhugg / CDSChecker (README)"
counts=()
for row in "${rows[@]}"; do
  read -r prog small large model <<<"${row%%|*}"
  anchors=${row#*|}
  build_one "${prog}_$small" "$prog" "$small" "$model"
  build_one "${prog}_$large" "$prog" "$large" "$model"
  read -r c1 t1 n1 h1 cpu1 pf1 cs1 p1 th1 < <(measure "${prog}_$small" "$model")
  read -r c2 t2 n2 h2 cpu2 pf2 cs2 p2 th2 < <(measure "${prog}_$large" "$model")
  rate=$(awk -v c1="$c1" -v c2="$c2" -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.0f", (c2 - c1) * 1000 / (t2 - t1) }')
  printf '%-16s %-18s %-18s %-14s %s\n' "$prog N=$small/$large $model" "$c1, $t1" "$c2, $t2" "$rate" "$anchors"
  n=$((n2 - n1))
  counts+=("$(printf '%-16s %-10s %-10s %-11s %-12s %-9s %-10s %-9s %s' "$prog N=$small/$large $model" "$n" \
    "$(per_execution "$cpu1" "$cpu2" "$n" 3)" "$(per_execution "$pf1" "$pf2" "$n" 1)" \
    "$(per_execution "$cs1" "$cs2" "$n" 1)" "$(per_execution "$h1" "$h2" "$n" 1)" \
    "$(per_execution "$p1" "$p2" "$n" 3)" "$(per_execution "$th1" "$th2" "$n" 2)" \
    "$(awk -v w="$((t2 - t1))" -v n="$n" 'BEGIN { printf "%.3f", w / n }')")")
done
echo
if [ ${#perf_events[@]} -gt 0 ]; then
  echo "per steady-state execution (perf stat over the whole run, large minus medium instance):"
else
  echo "per steady-state execution (large minus medium instance; no usable perf here: n/a):"
fi
printf '%-16s %-10s %-10s %-11s %-12s %-9s %-10s %-9s %s\n' "program, model" "executions" "CPU ms" "page faults" \
  "ctx switches" "hand-offs" "processes" "threads" "wall ms"
printf '%s\n' "${counts[@]}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
