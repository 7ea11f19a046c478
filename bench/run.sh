#!/usr/bin/env bash
# Measures ctrl's costs and prints them as a table (see docs/PERFORMANCE.md).
#
#   bench/run.sh BUILD_DIR
#
# BUILD_DIR is a configured and built tree (cmake -S . -B build && cmake
# --build build): BUILD_DIR/bin/ctrl, its agent, the samples and the bench
# programs. Not part of the test suite: the figures depend on the machine
# and on its load.
#
# Environment (optional):
#   REPS=7        repetitions of every timed command (the median is reported)
#   REPS_EXEC=5   repetitions of the 2000-execution run (a few seconds each)
#   N1=200000     atomic operations (and mutex lock/unlock iterations) of the
#                 one-worker runs
#   N2=100000     atomic operations per worker of the two-worker runs
#   EXECS=2000    executions of the per-execution figure
#
# Every figure is a median over the repetitions. For the per-operation
# figures two numbers are printed:
#   steady   the per-operation cost between two sizes: ((median wall under
#            ctrl of ops - of ops/2) - (the same natively)) / (ops/2), so
#            ctrl's start-up and the end of the execution cancel. (It used to
#            be the span the target measured with clock_gettime, which ctrl
#            now virtualises: every span under ctrl read 1000 or 3000 ns.)
#   run      (median wall time of `ctrl attach ...` - median native wall
#            time) / ops: everything, ctrl's start-up and the end of the
#            execution included; an upper bound of the per-operation cost.
# Figures: 1a/1b one worker (the running thread never changes), 2 two workers
# under round-robin (the thread changes at every step, which is checked), 2b
# the same confined to one CPU with taskset (informational), 3 executions of
# the mutex_counter sample under --strategy random.
# Exit status: 0 when every measurement ran (whether or not budgets are met),
# 1 when a command failed or printed something unexpected, 2 on bad usage.
set -euo pipefail

die() {
  echo "bench/run.sh: $*" >&2
  exit 1
}

[[ $# -eq 1 ]] || {
  echo "usage: bench/run.sh BUILD_DIR" >&2
  exit 2
}
BUILD=$(cd "$1" && pwd) || exit 2
BIN=$BUILD/bin
CTRL=$BIN/ctrl
TIME=$BIN/ctrl_bench_time
for f in "$CTRL" "$TIME" "$BIN/bench_atomic" "$BIN/bench_mutex" "$BIN/mutex_counter" "$BUILD/lib/ctrl/libctrl-agent.so"; do
  [[ -x $f || -f $f ]] || die "$f is missing: build the tree first (cmake --build $1)"
done

REPS=${REPS:-7}
REPS_EXEC=${REPS_EXEC:-5}
N1=${N1:-200000}
N2=${N2:-100000}
EXECS=${EXECS:-2000}
# Every operation is one step and the event log holds max-steps events.
MAX_STEPS=1000000
(( 2 * N1 + 100 <= MAX_STEPS && 2 * N2 + 100 <= MAX_STEPS )) || MAX_STEPS=$(( (N1 > N2 ? N1 : N2) * 2 + 1000 ))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ctrl-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"  # ctrl-traces/ would land here if a run found a bug

RR=(attach --strategy round-robin --max-executions 1 --max-steps "$MAX_STEPS" --show-output)

median() {  # numbers on stdin -> median (mean of the middle two if even)
  sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
minmax() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }

# run NAME REPS CMD...: runs CMD REPS times; appends the wall time (ns) of
# each run to NAME.wall, its stdout to NAME.out (one run after another) and
# the bench line's span_ns and switches to NAME.span / NAME.switches.
run() {
  local name=$1 reps=$2
  shift 2
  : >"$name.wall"
  : >"$name.span"
  : >"$name.switches"
  : >"$name.out"
  local i
  for ((i = 0; i < reps; i++)); do
    if ! "$TIME" "$WORK/t" "$@" >"$WORK/o" 2>"$WORK/e"; then
      cat "$WORK/o" "$WORK/e" >&2
      die "failed: $*"
    fi
    cat "$WORK/t" >>"$name.wall"
    cat "$WORK/o" >>"$name.out"
    if [[ " $* " == *" $CTRL "* ]]; then
      # One clean execution per ctrl run (or EXECS of them), no bug, none cut.
      grep -Eq '^[0-9]+ executions \(([0-9]+) complete, 0 blocked\), 0 bugs' "$WORK/o" ||
        { cat "$WORK/o" "$WORK/e" >&2; die "unexpected ctrl summary: $*"; }
    fi
    local line
    line=$(grep '^bench:' "$WORK/o" || true)
    if [[ -n $line ]]; then
      sed -n 's/.* span_ns=\([0-9]*\).*/\1/p' <<<"$line" >>"$name.span"
      sed -n 's/.* switches=\([0-9]*\).*/\1/p' <<<"$line" >>"$name.switches"
    fi
  done
}

med() { median <"$1"; }
# steady CTRL NATIVE CTRL_HALF NATIVE_HALF OPS_BETWEEN -> ns per op between
# the two sizes, under ctrl less natively
steady() {
  awk -v c="$(med "$1")" -v n="$(med "$2")" -v ch="$(med "$3")" -v nh="$(med "$4")" -v k="$5" \
    'BEGIN { printf "%.0f", ((c - ch) - (n - nh)) / k }'
}
# per_op CTRL_FILE NATIVE_FILE OPS -> ns per op of the difference of medians
per_op() { awk -v a="$(med "$1")" -v b="$(med "$2")" -v n="$3" 'BEGIN { printf "%.0f", (a - b) / n }'; }
us() { awk -v v="$1" 'BEGIN { printf "%.3f", v / 1000 }'; }
verdict() { awk -v v="$1" -v b="$2" 'BEGIN { print (v <= b ? "met" : "MISSED") }'; }

echo "ctrl bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  REPS=$REPS REPS_EXEC=$REPS_EXEC N1=$N1 N2=$N2 EXECS=$EXECS --max-steps $MAX_STEPS"
echo

# 0. Each benchmarked operation is one step, and little else is: with ops - 1
# steps the execution is cut, with ops + 40 it completes (thread creation,
# start, exit, join and the main thread's few accesses are the rest).
check_steps() {  # OPS PROGRAM ARGS...
  local ops=$1 out
  shift
  out=$("$CTRL" attach --strategy round-robin --max-executions 1 --max-steps $((ops - 1)) "$@" 2>&1) || true
  grep -q 'cut by --max-steps' <<<"$out" || { echo "$out" >&2; die "fewer than $ops steps: $*"; }
  out=$("$CTRL" attach --strategy round-robin --max-executions 1 --max-steps $((ops + 40)) "$@" 2>&1) ||
    { echo "$out" >&2; die "failed: $*"; }
  grep -q '^1 executions (1 complete, 0 blocked), 0 bugs' <<<"$out" || { echo "$out" >&2; die "more than $((ops + 40)) steps: $*"; }
}
echo "checking that one operation is one step ..." >&2
check_steps 1000 "$BIN/bench_atomic" 1 1000
check_steps 1000 "$BIN/bench_mutex" 1 500
check_steps 1000 "$BIN/bench_atomic" 2 500

# 1. One worker: the running thread never changes. Each figure at its size
# and at half of it (the steady column: the difference).
H1=$((N1 / 2))
H2=$((N2 / 2))
echo "measuring 1: one worker, $N1 and $H1 atomic fetch_add ..." >&2
run a1n "$REPS" "$BIN/bench_atomic" 1 "$N1"
run a1c "$REPS" "$CTRL" "${RR[@]}" "$BIN/bench_atomic" 1 "$N1"
run a1hn "$REPS" "$BIN/bench_atomic" 1 "$H1"
run a1hc "$REPS" "$CTRL" "${RR[@]}" "$BIN/bench_atomic" 1 "$H1"
echo "measuring 1: one worker, $N1 and $H1 mutex lock/unlock pairs ..." >&2
run m1n "$REPS" "$BIN/bench_mutex" 1 "$N1"
run m1c "$REPS" "$CTRL" "${RR[@]}" "$BIN/bench_mutex" 1 "$N1"
run m1hn "$REPS" "$BIN/bench_mutex" 1 "$H1"
run m1hc "$REPS" "$CTRL" "${RR[@]}" "$BIN/bench_mutex" 1 "$H1"

# 2. Two workers under round-robin: the token moves at every step.
echo "measuring 2: two workers, $N2 and $H2 atomic fetch_add each ..." >&2
run a2n "$REPS" "$BIN/bench_atomic" 2 "$N2"
run a2c "$REPS" "$CTRL" "${RR[@]}" "$BIN/bench_atomic" 2 "$N2"
run a2hn "$REPS" "$BIN/bench_atomic" 2 "$H2"
run a2hc "$REPS" "$CTRL" "${RR[@]}" "$BIN/bench_atomic" 2 "$H2"

# 2b. The same confined to one CPU (what happens when the machine is busy and
# the two workers share a CPU): informational, skipped without taskset.
if command -v taskset >/dev/null; then
  echo "measuring 2b: the same on one CPU (taskset -c 0) ..." >&2
  run a2tn "$REPS" taskset -c 0 "$BIN/bench_atomic" 2 "$N2"
  run a2tc "$REPS" taskset -c 0 "$CTRL" "${RR[@]}" "$BIN/bench_atomic" 2 "$N2"
  run a2thn "$REPS" taskset -c 0 "$BIN/bench_atomic" 2 "$H2"
  run a2thc "$REPS" taskset -c 0 "$CTRL" "${RR[@]}" "$BIN/bench_atomic" 2 "$H2"
fi

# 3. One execution of a small sample (3 threads, 2 lock/unlock rounds each).
echo "measuring 3: mutex_counter, $EXECS executions and 1 execution ..." >&2
run e1 "$REPS" "$CTRL" attach --strategy random --max-executions 1 "$BIN/mutex_counter"
run eN "$REPS_EXEC" "$CTRL" attach --strategy random --max-executions "$EXECS" "$BIN/mutex_counter"
grep -q "^$EXECS executions ($EXECS complete" eN.out || die "the $EXECS-execution run did not complete $EXECS executions"

ops1=$N1
opsm=$((2 * N1))
ops2=$((2 * N2))
# Fraction of steps at which the thread changed (from the counter values the
# workers saw): (switches) / (ops - 1); 1.000 is a switch at every step.
switch_frac=$(awk -v s="$(med a2c.switches)" -v n="$ops2" 'BEGIN { printf "%.4f", s / (n - 1) }')
native_switch=$(awk -v s="$(med a2n.switches)" -v n="$ops2" 'BEGIN { printf "%.4f", s / (n - 1) }')

a1s=$(steady a1c.wall a1n.wall a1hc.wall a1hn.wall $((ops1 - H1))); a1r=$(per_op a1c.wall a1n.wall "$ops1")
m1s=$(steady m1c.wall m1n.wall m1hc.wall m1hn.wall $((opsm - 2 * H1))); m1r=$(per_op m1c.wall m1n.wall "$opsm")
a2s=$(steady a2c.wall a2n.wall a2hc.wall a2hn.wall $((ops2 - 2 * H2))); a2r=$(per_op a2c.wall a2n.wall "$ops2")
e1=$(med e1.wall)
eN=$(med eN.wall)
per_exec=$(awk -v t="$eN" -v n="$EXECS" 'BEGIN { printf "%.0f", t / n }')
marginal=$(awk -v t="$eN" -v o="$e1" -v n="$EXECS" 'BEGIN { printf "%.0f", (t - o) / (n - 1) }')

row() { printf '%-44s %-10s %14s %14s  %s\n' "$@"; }
row "figure" "budget" "steady (us)" "run (us)" "status (steady / run)"
row "1a per op, same thread: atomic fetch_add" "<= 1 us" "$(us "$a1s")" "$(us "$a1r")" "$(verdict "$a1s" 1000) / $(verdict "$a1r" 1000)"
row "1b per op, same thread: mutex lock/unlock" "<= 1 us" "$(us "$m1s")" "$(us "$m1r")" "$(verdict "$m1s" 1000) / $(verdict "$m1r" 1000)"
row "2  per op, thread changes: atomic" "<= 3 us" "$(us "$a2s")" "$(us "$a2r")" "$(verdict "$a2s" 3000) / $(verdict "$a2r" 3000)"
if [[ -s a2tc.wall ]]; then
  a2ts=$(steady a2tc.wall a2tn.wall a2thc.wall a2thn.wall $((ops2 - 2 * H2))); a2tr=$(per_op a2tc.wall a2tn.wall "$ops2")
  row "2b the same, on one CPU (taskset -c 0)" "<= 3 us" "$(us "$a2ts")" "$(us "$a2tr")" "$(verdict "$a2ts" 3000) / $(verdict "$a2tr" 3000)"
fi
echo
printf '%-44s %s\n' "3  one execution of mutex_counter (random)" "$(us "$per_exec") us  (= wall of $EXECS executions / $EXECS)"
printf '%-44s %s\n' "   marginal execution" "$(us "$marginal") us  (= (wall($EXECS) - wall(1)) / $((EXECS - 1)))"
printf '%-44s %s\n' "   start-up + 1 execution" "$(us "$e1") us  (wall of --max-executions 1)"
echo
echo "details (medians; min..max of the runs under ctrl):"
details() { # LABEL PREFIX: native and ctrl walls at both sizes
  printf '  %s native wall %s ns (half: %s); ctrl wall %s ns (%s) (half: %s ns, %s)\n' "$1" \
    "$(med "$2n.wall")" "$(med "$2hn.wall")" "$(med "$2c.wall")" "$(minmax <"$2c.wall")" \
    "$(med "$2hc.wall")" "$(minmax <"$2hc.wall")"
}
details 1a a1
details 1b m1
details "2 " a2
[[ -s a2tc.wall ]] && details 2b a2t
printf '  2  thread changed at %s of the steps under ctrl (native: %s)\n' "$switch_frac" "$native_switch"
printf '  3  wall of %s executions %s ns (%s); of 1 execution %s ns (%s)\n' \
  "$EXECS" "$eN" "$(minmax <eN.wall)" "$e1" "$(minmax <e1.wall)"
if [[ -s a2tc.switches ]]; then
  printf '  2b thread changed at %s of the steps under ctrl\n' \
    "$(awk -v s="$(med a2tc.switches)" -v n="$ops2" 'BEGIN { printf "%.4f", s / (n - 1) }')"
fi
awk -v f="$switch_frac" 'BEGIN { exit !(f >= 0.99) }' ||
  die "round-robin changed threads at only $switch_frac of the steps: figure 2 does not measure a switch per step"
