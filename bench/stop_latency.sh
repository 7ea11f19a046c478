#!/usr/bin/env bash
# How long ctrl takes to stop after Ctrl-C (SIGINT to its process group),
# SIGTERM or --time-limit, in each phase of a run, with two CPU hogs running
# (issue 26: "within 1 s, median of 10, on a loaded machine").
#
#   bench/stop_latency.sh CTRL SAMPLES_DIR [RUNS [BOUND_MS]]
#
# SAMPLES_DIR holds the built samples (build/bin). Prints one line per phase
# and stop: the median and the largest of RUNS stops (default 10), in ms
# from the signal (or from the moment the time limit falls) to ctrl's exit.
# With BOUND_MS, exits 1 when a median exceeds it (the CTest perf.stop_*).
# STOP_PHASES (a regular expression) keeps some phases, STOP_SIGNALS
# (INT|TERM|limit) some stops.
#
# Phases (each started so that the stop falls inside it):
#   startup    attach, the stop 30 ms after ctrl's start (the launch, the
#              analysis of the binaries).
#   execution  one long execution (long_execution 400000 30: 400,000 visible
#              operations, then 30 s of computation): 0.3 s after its
#              "events done"; --time-limit 3.
#   analysis   long_execution 2000000 0: 0.2 s after it printed "computed",
#              while ctrl analyses its 2,000,000 events; --time-limit at the
#              first run's "computed" + 0.3 s.
#   shrinking  long_prefix_bug 20000 with --strategy random: 0.03 s after
#              ctrl said it shrinks the bug's interleaving (stderr);
#              --time-limit at that line's moment (median of three runs)
#              + 0.1 s.
#   replay     `ctrl replay` of a 300,000-step hang trace of long_execution,
#              0.3 s after "events done".
#   stepping   `ctrl replay --batch` of that trace, 0.05 s into a `goto` to
#              its last steps (after the script's echo of it).
# A stop that did not land in its phase (ctrl had ended before it; the
# goto was not cut short) is a miss: counted in the "missed" column, left
# out of the median and tried again (up to 2 x RUNS more stops), so the
# median is of RUNS stops in the phase; with BOUND_MS, fewer than RUNS
# such stops fail too (the phase was not measured: a stepping session that
# ignored Ctrl-C in a goto did just that).
set -u
set -m # ctrl in a process group of its own, as a shell's foreground job

if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  echo "usage: $0 CTRL SAMPLES_DIR [RUNS [BOUND_MS]]" >&2
  exit 2
fi
ctrl=$1 samples=$2 runs=${3:-10} bound=${4:-}
# Absolute: the runs happen in a directory of their own.
[[ $ctrl == */* ]] && ctrl=$(realpath "$ctrl")
samples=$(realpath "$samples")
work=$(mktemp -d)
hogs=()
cleanup() {
  for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$work" || exit 1
for h in 1 2; do
  yes >/dev/null &
  hogs+=($!)
done

now() { date +%s%N; }
ms_since() { echo $((($(now) - $1) / 1000000)); }

# Waits up to $2 s for $1 in ctrl's stdout (in file $3: err) while ctrl runs.
wait_output() {
  local steps=$(($2 * 100))
  for _ in $(seq "$steps"); do
    grep -q -- "$1" "${3:-out}" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

# Waits for ctrl's end (at most 60 s); sets latency to the ms since $1.
wait_end() {
  for _ in $(seq 6000); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.005
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    latency=60000
    return
  fi
  latency=$(ms_since "$1")
  wait "$pid" 2>/dev/null
}

send() {
  case $1 in
    INT) kill -INT -- "-$pid" ;;
    TERM) kill -TERM "$pid" ;;
  esac
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

le=$samples/long_execution
pb=$samples/long_prefix_bug
mc=$samples/mutex_counter
# The hang trace replay and stepping use.
"$ctrl" attach --trace-dir rec --hang-timeout 1 --max-steps 3000000 "$le" 300000 30 >/dev/null 2>&1
trace=$(ls rec/*.ctrltrace 2>/dev/null | head -1)
[ -n "$trace" ] || { echo "no hang trace recorded" >&2; exit 1; }
printf 'goto 299990\nquit\n' >steps.batch
long=(--max-steps 3000000 --hang-timeout 60 --show-output)

# One stop; sets latency to ms (or "-": no such stop in this phase, "miss":
# the stop did not land in the phase). Not run in a subshell: ctrl must be
# a job of this shell (its own process group, SIGINT not ignored).
one() {
  local phase=$1 stop=$2 start limit=()
  # The previous run's files out: a wait for a line must see this run's.
  rm -f out err
  case $phase in
    startup) [ "$stop" = limit ] && limit=(--time-limit 0.03) ;;
    execution) [ "$stop" = limit ] && limit=(--time-limit 3) ;;
    analysis) [ "$stop" = limit ] && limit=(--time-limit "$analysis_limit") ;;
    shrinking) [ "$stop" = limit ] && limit=(--time-limit "$shrink_limit") ;;
    replay | stepping) [ "$stop" = limit ] && { latency=-; return; } ;;
  esac
  start=$(now)
  case $phase in
    startup) "$ctrl" attach "${limit[@]}" --trace-dir t --strategy random --max-executions 1000000 "$mc" >out 2>err & ;;
    execution) "$ctrl" attach "${limit[@]}" --trace-dir t "${long[@]}" "$le" 400000 30 >out 2>err & ;;
    analysis) "$ctrl" attach "${limit[@]}" --trace-dir t "${long[@]}" "$le" 2000000 0 >out 2>err & ;;
    shrinking) "$ctrl" attach "${limit[@]}" --trace-dir t --strategy random "$pb" 20000 >out 2>err & ;;
    replay) "$ctrl" replay --show-output "$trace" >out 2>err & ;;
    stepping) "$ctrl" replay --batch steps.batch "$trace" >out 2>err & ;;
  esac
  pid=$!
  if [ "$stop" = limit ]; then
    local at
    case $phase in
      startup) at=0.03 ;; execution) at=3 ;; analysis) at=$analysis_limit ;; shrinking) at=$shrink_limit ;;
    esac
    local fall=$((start + $(awk -v a="$at" 'BEGIN { printf "%d", a * 1000 }') * 1000000))
    wait_end "$fall"
    # Ended before the limit fell, or (shrinking) fell before the bug was
    # found: not a stop by the limit in this phase.
    [ "$latency" -lt 0 ] && latency=miss
    [ "$phase" = shrinking ] && ! grep -q "== bug" out && latency=miss
    return
  fi
  case $phase in
    startup) sleep 0.03 ;;
    execution | replay) wait_output "events done" 60 && sleep 0.3 ;;
    analysis) wait_output computed 120 && sleep 0.2 ;;
    # Shrinking and a goto last a few tenths of a second on a quiet
    # machine: a later stop often finds them over.
    shrinking) wait_output "shrinking its interleaving" 60 err && sleep 0.03 ;;
    stepping) wait_output "(ctrl) goto" 60 && sleep 0.05 ;;
  esac
  local sent
  sent=$(now)
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; latency=miss; return; }
  send "$stop"
  wait_end "$sent"
  # The goto ran to its end (step 299990): the stop was not in it.
  [ "$phase" = stepping ] && { ! grep -q "interrupted" out || grep -q "at step 299990" out; } && latency=miss
}

# Calibration: when the analysis starts, when the bug is found.
"$ctrl" attach --trace-dir t "${long[@]}" "$le" 2000000 0 >out 2>err &
pid=$!
s=$(now)
wait_output computed 120
analysis_limit=$(awk -v ms="$(ms_since "$s")" 'BEGIN { printf "%.2f", ms / 1000 + 0.3 }')
kill -INT -- "-$pid"
wait "$pid"
# Shrinking lasts about 0.3 s: the median of three runs' moments, so that
# one slow first run does not put the limit after the end.
moments=()
for _ in 1 2 3; do
  rm -f out err
  s=$(now)
  "$ctrl" attach --trace-dir t --strategy random "$pb" 20000 >out 2>err &
  pid=$!
  wait_output "shrinking its interleaving" 60 err || { echo "ctrl never said it shrinks the bug" >&2; exit 1; }
  moments+=("$(ms_since "$s")")
  wait "$pid"
done
shrink_limit=$(awk -v ms="$(printf '%s\n' "${moments[@]}" | median)" 'BEGIN { printf "%.2f", ms / 1000 + 0.1 }')
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) with 2 hogs; analysis from ${analysis_limit}s, shrinking from ${shrink_limit}s"
printf '%-10s %-6s %10s %8s %6s\n' phase stop median_ms max_ms missed
over=0
for phase in startup execution analysis shrinking replay stepping; do
  [[ $phase =~ ${STOP_PHASES:-.} ]] || continue
  for stop in INT TERM limit; do
    [[ $stop =~ ${STOP_SIGNALS:-.} ]] || continue
    results=()
    missed=0
    # RUNS stops that landed in the phase; one that missed it (the phase
    # was over first) is tried again, up to 2 x RUNS more times.
    for _ in $(seq $((3 * runs))); do
      one "$phase" "$stop"
      [ "$latency" = "-" ] && break
      if [ "$latency" = miss ]; then missed=$((missed + 1)); else results+=("$latency"); fi
      [ ${#results[@]} -ge "$runs" ] && break
    done
    [ "$latency" = "-" ] && { printf '%-10s %-6s %10s %8s %6s\n' "$phase" "$stop" n/a n/a n/a; continue; }
    if [ ${#results[@]} = 0 ]; then
      med=- max=-
    else
      med=$(printf '%s\n' "${results[@]}" | median)
      max=$(printf '%s\n' "${results[@]}" | sort -n | tail -1)
    fi
    printf '%-10s %-6s %10s %8s %6s\n' "$phase" "$stop" "$med" "$max" "$missed"
    [ -n "$bound" ] || continue
    if [ ${#results[@]} -lt "$runs" ]; then
      echo "FAIL: $phase, $stop: only ${#results[@]} of $((${#results[@]} + missed)) stops landed in the phase (runs: ${results[*]})"
      over=1
    elif [ "$med" -gt "$bound" ]; then
      echo "FAIL: $phase, $stop: median $med ms > $bound ms (runs: ${results[*]})"
      over=1
    fi
  done
done
exit $over
