#!/usr/bin/env bash
# Where the CPU time of one execution goes (issue 12), for queue2 (the
# shared program, ../shared/bench, libatomic variant) under --model sc:
# microseconds per steady-state execution, by process role (ctrl, the fork
# server, the execution processes) and, inside each, by activity: kernel work
# named by the kernel function on the sample's call chain (fork, page faults,
# exit, futex, sched_yield, poll/wait, socket, /proc), user code by where the
# sampled instruction is (ctrl's DPOR, the agent, libc, the program).
#
#   bash bench/breakdown.sh [BUILD_DIR] [MEDIUM_N LARGE_N]    (default 5 7)
# FOLD=us: activities under that many microseconds per execution are
# summed on one line (default 2); PERIOD=ns: CPU time per sample (250000).
#
# How: `perf record -a -e cpu-clock -c PERIOD -g` over a whole `ctrl attach`
# of each instance. Sampling is system-wide (per CPU) because a per-task
# software clock only fires after a task has run a whole period, and an
# execution's threads live shorter than that: they would go unseen. Every
# sample is PERIOD of CPU time of the task it caught; samples of tasks that
# are not this run's are dropped. The roles come from perf's fork records,
# in time order (pids are reused within a run): ctrl is the process the
# script started; the fork server is the process ctrl started that executed
# the program; execution processes are its descendants (with executions in
# place, the runner processes). Per execution = (large - medium) / the executions between
# them, so that start-up cancels out. Needs perf and root (or
# perf_event_paranoid <= -1 with kernel symbols readable). The figures vary
# with the load; the roles and their shares less so.
#
# Call chains are frame-pointer ones: complete in the kernel, so the kernel
# lines are exact; ctrl and the libraries are built without frame pointers,
# so user time is attributed by the sampled instruction only (the leaf
# function: DporStrategy's own code, but not the vector copies it calls).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
medium=${2:-5}
large=${3:-7}
period=${PERIOD:-250000}  # ns of CPU per sample
ctrl=$build/bin/ctrl
shared=$root/../shared/bench
perf=${PERF:-perf}
[ -f "$shared/queue2.c" ] || { echo "bench/breakdown.sh: $shared/queue2.c is missing" >&2; exit 2; }
[ -x "$ctrl" ] || { echo "bench/breakdown.sh: no $ctrl (build first)" >&2; exit 2; }
if ! "$perf" record -q -a -e cpu-clock -c "$period" -g -o /dev/null -- true 2>/dev/null; then
  echo "bench/breakdown.sh: cannot run '$perf record -a -g' here (needs perf and root)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One instance: "executions" on the first line, then "role<TAB>activity<TAB>samples".
profile() { # n
  local bin=$work/queue2_$1
  gcc -O2 -pthread -DN="$1" -I"$shared" -fno-inline-atomics -o "$bin" "$shared/queue2.c" -latomic
  # The shell records its pid, then becomes ctrl: that is the pid to follow.
  "$perf" record -q -a -e cpu-clock -c "$period" -g -o "$work/perf.data" -- \
    sh -c 'echo $$ >"$0"; exec "$@"' "$work/ctrl.pid" "$ctrl" attach --model sc --max-executions 1000000 \
    --trace-dir "$work/traces" --json "$work/report.json" "$bin" >"$work/out" 2>/dev/null
  grep -q 'exhaustive: yes' "$work/out" || { echo "bench/breakdown.sh: queue2 N=$1: $(cat "$work/out")" >&2; exit 1; }
  # (executions.total: the probes' own "total" comes first in the file)
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["executions"]["total"])' "$work/report.json"
  "$perf" script -i "$work/perf.data" --show-task-events -F comm,pid,tid,ip,sym,dso 2>/dev/null >"$work/script"
  # Pass 1: the fork server, the process of ctrl's tree with the most children.
  local server
  server=$(awk -v ctrl="$(cat "$work/ctrl.pid")" -v bin="queue2_$1" -f "$root/bench/breakdown_roles.awk" "$work/script")
  # Pass 2: every sample of this run's processes, by role and activity.
  awk -v ctrl="$(cat "$work/ctrl.pid")" -v server="$server" -v bin="queue2_$1" \
    -f "$root/bench/breakdown_classify.awk" "$work/script"
}

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
profile "$medium" >"$work/medium"
profile "$large" >"$work/large"
n1=$(head -n 1 "$work/medium")
n2=$(head -n 1 "$work/large")
echo "queue2 N=$medium/$large --model sc: $n1 / $n2 executions; one sample = $((period / 1000)) us of CPU" \
  "(perf record -a -e cpu-clock -c $period -g)"
awk -F'\t' -v n="$((n2 - n1))" -v fold="${FOLD:-2}" -v us="$(awk -v p="$period" 'BEGIN { print p / 1000 }')" '
  FNR == 1 { next }
  FILENAME == ARGV[1] { a[$1 "\t" $2] += $3; keys[$1 "\t" $2] = 1; next }
  { b[$1 "\t" $2] += $3; keys[$1 "\t" $2] = 1 }
  END {
    order["ctrl"] = 1; order["fork server"] = 2; order["execution"] = 3; order["other of the run"] = 4
    for (k in keys) {
      split(k, f, "\t")
      v = (b[k] - a[k]) * us / n
      role[f[1]] += v; total += v
      line[k] = v
    }
    printf "%-18s %-44s %10s %7s\n", "role", "activity", "us/exec", "share"
    for (r in role) {
      # The roles in a fixed order, their activities largest first.
      nk = 0
      for (k in line) { split(k, f, "\t"); if (f[1] == r) ks[++nk] = k }
      for (i = 1; i <= nk; i++) for (j = i + 1; j <= nk; j++) if (line[ks[j]] > line[ks[i]]) { t = ks[i]; ks[i] = ks[j]; ks[j] = t }
      out[order[r]] = sprintf("%-18s %-44s %10.1f %6.1f%%\n", r, "(all)", role[r], 100 * role[r] / total)
      small = 0; nsmall = 0
      for (i = 1; i <= nk; i++) {
        split(ks[i], f, "\t")
        v = line[ks[i]]
        if (v < fold && v > -fold) { small += v; nsmall++; continue }
        out[order[r]] = out[order[r]] sprintf("%-18s %-44s %10.1f %6.1f%%\n", "", f[2], v, 100 * v / total)
      }
      if (nsmall)
        out[order[r]] = out[order[r]] sprintf("%-18s %-44s %10.1f %6.1f%%\n", "",
          sprintf("%d more, each under %g us", nsmall, fold), small, 100 * small / total)
    }
    for (i = 1; i <= 4; i++) printf "%s", out[i]
    printf "%-18s %-44s %10.1f %6.1f%%\n", "total", "", total, 100
  }' "$work/medium" "$work/large"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
