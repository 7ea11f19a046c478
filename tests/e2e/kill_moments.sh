#!/usr/bin/env bash
# The program killed from outside at COUNT random moments (issue 26,
# acceptance): ctrl never hangs, never blames the program, never exits 3, and
# ends with the documented status and line each time.
#
#   kill_moments.sh CTRL SAMPLES_DIR WORKDIR [COUNT [SEED]]
#
# Each moment draws (from SEED, fixed) a phase, a delay within it and one of
# the program's threads: every thread of every process below ctrl (the
# launched program, its fork server's runners, live checkpoints) is a
# candidate, and a SIGKILL to a thread ends its whole process. Phases:
#   startup     attach on a correct program, 0-0.25 s after ctrl's start
#               (the launch, the exec, the binaries' analysis).
#   execution   one long execution (400,000 visible operations, then 4 s of
#               computation).
#   analysis    just after a 100,000-step execution ended (its output says
#               so): ctrl analyses it while the program waits.
#   bug         a bug after a long start (long_prefix_bug): executions from
#               live checkpoints, the bug, shrinking, backtraces, the trace.
#   deadlock    deadlock_lock_order: the bug at once, the blocked threads'
#               backtraces.
#   checkpoint  long_prefix_race with computation: 40 executions, most
#               restored from a live checkpoint.
#   replay      `ctrl replay` of a long_prefix_bug trace, and `--batch`
#               stepping through it (goto, checkpoint, restart, back).
# After each kill: ctrl ends within 5 s; exit 2 with one line saying the
# program was killed from outside ctrl; or, when the kill came after the
# program's real bug was found, exit 1 reporting that bug (never a crash,
# hang or deadlock the kill made); or exit 0 after a complete run of a
# correct program (the kill came after its last execution). Never exit 3, a
# death by signal or "internal error"; no process of the program is left.
set -u
set -m # each ctrl in its own process group, as from a shell

if [ $# -lt 3 ] || [ $# -gt 5 ]; then
  echo "usage: $0 CTRL SAMPLES_DIR WORKDIR [COUNT [SEED]]" >&2
  exit 2
fi
ctrl=$1 samples=$2 workdir=$3 count=${4:-100} seed=${5:-26}
rm -rf "$workdir" && mkdir -p "$workdir" && cd "$workdir" || exit 1
RANDOM=$seed

# Copies under names of their own: what is left of them is found by name.
tag=k$$
tag=${tag:0:6}
for p in mutex_counter long_execution long_prefix_bug long_prefix_race deadlock_lock_order; do
  [ -x "$samples/$p" ] || { echo "no $samples/$p" >&2; exit 2; }
done
cp "$samples/mutex_counter" "${tag}mc" && cp "$samples/long_execution" "${tag}le" &&
  cp "$samples/long_prefix_bug" "${tag}pb" && cp "$samples/long_prefix_race" "${tag}pr" &&
  cp "$samples/deadlock_lock_order" "${tag}dl" || exit 1
names=("${tag}mc" "${tag}le" "${tag}pb" "${tag}pr" "${tag}dl")

failures=0
fail() {
  echo "FAIL (moment $i, $phase, kill at +$delay s of ${target_what:-?}): $*"
  for f in out err; do
    echo "---- $f ----"
    tail -20 "$f" 2>/dev/null
  done
  failures=$((failures + 1))
}

now() { date +%s%N; }
# A random decimal in [$1, $2), two digits.
uniform() { awk -v a="$1" -v b="$2" -v r=$RANDOM 'BEGIN { printf "%.2f", a + (b - a) * r / 32768 }'; }

# Every process below $1 (children through all its threads), recursively.
descendants() {
  local c
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    echo "$c"
    descendants "$c"
  done
}

# The processes of the program still running (not zombies), by name.
program_left() {
  local n
  for n in "${names[@]}"; do pgrep -x "$n"; done
}

# Kills one thread (so its process) of the program, drawn with $1 (a
# random number): waits up to 3 s for a process below ctrl to exist, and
# draws again when the thread was gone before the kill. Sets target_what.
kill_one() {
  local r=$1 tasks p t
  for _ in $(seq 300); do
    tasks=()
    for p in $(descendants "$pid"); do
      for t in /proc/"$p"/task/*; do
        [ -d "$t" ] && tasks+=("$p:${t##*/}")
      done
    done
    if [ ${#tasks[@]} -gt 0 ]; then
      t=${tasks[r % ${#tasks[@]}]}
      target_what="thread ${t#*:} of process ${t%%:*} (1 of ${#tasks[@]} threads)"
      kill -KILL "${t#*:}" 2>/dev/null && return 0
      r=$((r + 1))
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  target_what="nothing (no process of the program)"
  return 1
}

# Waits up to $2 s for ctrl's output $1 (while ctrl runs).
wait_output() {
  for _ in $(seq $(($2 * 100))); do
    grep -q -- "$1" out 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

# Traces of long_prefix_bug to replay.
"$ctrl" attach --trace-dir recorded "./${tag}pb" 20000 >out 2>err
[ $? = 1 ] || { echo "recording the trace failed"; cat out err; exit 1; }
trace=$(ls recorded/*.ctrltrace)
printf 'goto 1500\ncheckpoint\ngoto 20030\nrestart 1\ngoto 19000\nback 100\ngoto 20036\ngoto 10\ngoto 20037\nquit\n' >steps.batch

phases=(startup execution analysis bug deadlock checkpoint replay)
declare -A seen=() outcomes=()
start_all=$(now)
for i in $(seq "$count"); do
  phase=${phases[RANDOM % ${#phases[@]}]}
  # KILL_PHASES (a regular expression) keeps some phases, to look into one.
  if [ -n "${KILL_PHASES:-}" ] && ! [[ $phase =~ $KILL_PHASES ]]; then
    for _ in 1 2 3 4 5 6; do : $RANDOM; done
    continue
  fi
  # A bug found is the expected outcome unless the kill came first.
  bug_kind=
  after=
  case $phase in
    startup)
      delay=$(uniform 0 0.25)
      args=(attach --trace-dir t --strategy random --max-executions 1000000 "./${tag}mc")
      ;;
    execution)
      delay=$(uniform 0.3 2.0)
      args=(attach --trace-dir t --max-steps 3000000 --hang-timeout 60 "./${tag}le" 400000 4)
      ;;
    analysis)
      delay=$(uniform 0 0.3)
      after=computed
      args=(attach --trace-dir t --max-steps 3000000 --hang-timeout 60 --show-output "./${tag}le" 100000 0)
      ;;
    bug)
      delay=$(uniform 0.2 2.0)
      bug_kind=assertion
      args=(attach --trace-dir t "./${tag}pb" 20000)
      ;;
    deadlock)
      delay=$(uniform 0.05 0.8)
      bug_kind=deadlock
      args=(attach --trace-dir t "./${tag}dl")
      ;;
    checkpoint)
      delay=$(uniform 0.3 2.5)
      args=(attach --trace-dir t "./${tag}pr" 20000 2000)
      ;;
    replay)
      delay=$(uniform 0.05 1.0)
      bug_kind=assertion
      if [ $((RANDOM % 2)) = 0 ]; then
        args=(replay "$trace")
      else
        args=(replay --batch steps.batch "$trace")
        phase=replay-batch
      fi
      ;;
  esac
  r=$RANDOM
  rm -rf t
  "$ctrl" "${args[@]}" >out 2>err &
  pid=$!
  if [ -n "$after" ]; then
    wait_output "$after" 60 || { wait "$pid"; fail "never got to '$after' (exit $?)"; continue; }
  fi
  sleep "$delay"
  target_what=
  kill_one "$r"
  killed=$(now)
  ended=
  while [ $((($(now) - killed) / 1000000)) -lt 5000 ]; do
    kill -0 "$pid" 2>/dev/null || { ended=1; break; }
    sleep 0.01
  done
  if [ -z "$ended" ]; then
    # Where it is stuck, when gdb is there to say.
    if command -v gdb >/dev/null; then
      timeout 60 gdb -nx -batch -p "$pid" -ex "thread apply all bt" 2>&1 | grep -E "^(Thread|#)" | head -60
    fi
    kill -9 -- "-$pid" 2>/dev/null
    wait "$pid"
    fail "ctrl still running 5 s after the kill"
    continue
  fi
  wait "$pid"
  rc=$?
  took=$((($(now) - killed) / 1000000))
  line=$(grep -v '^\s*$' err | tail -1)
  echo "moment $i: $phase, +$delay s, $target_what: exit $rc after $took ms: $line"
  seen[$phase]=$((${seen[$phase]:-0} + 1))
  outcomes[$rc]=$((${outcomes[$rc]:-0} + 1))
  grep -q "internal error" err && fail "an internal error"
  case $rc in
    2)
      grep -q "killed from outside ctrl" err || fail "exit 2 without saying the program was killed from outside"
      [ "$(grep -c -v '^\s*$' err)" -le 3 ] || fail "more than a line or so on stderr"
      grep -q "== bug" out && fail "a bug was reported"
      ;;
    1)
      [ -n "$bug_kind" ] || fail "a bug reported in a correct program"
      if [ "${phase%-batch}" = replay ]; then
        grep -q "replay reproduced the $bug_kind bug" out || fail "exit 1 but not the recorded $bug_kind"
      else
        grep -q "== bug 1: $bug_kind " out || fail "exit 1 but not the program's $bug_kind"
        [ "$(grep -c "== bug" out)" = 1 ] || fail "more than one bug"
      fi
      ;;
    0)
      [ -z "$bug_kind" ] || [ "$phase" = replay-batch ] || fail "exit 0 on a program with a bug"
      if [ -z "$bug_kind" ]; then
        grep -q "exhaustive: yes" out || fail "exit 0 without a complete run"
      fi
      ;;
    *) fail "exit $rc" ;;
  esac
  # What is left ends with ctrl (EXITKILL, parent-death signals): moments.
  for _ in $(seq 100); do [ -z "$(program_left)" ] && break; sleep 0.03; done
  left=$(program_left)
  if [ -n "$left" ]; then
    ps -o pid=,ppid=,stat=,comm= -p "$(echo $left | tr ' ' ,)"
    kill -9 $left 2>/dev/null
    fail "processes of the program left"
  fi
done
total=$((($(now) - start_all) / 1000000000))
echo "phases: $(for p in "${!seen[@]}"; do printf '%s %s, ' "$p" "${seen[$p]}"; done)"
echo "exits: $(for c in "${!outcomes[@]}"; do printf '%s: %s, ' "$c" "${outcomes[$c]}"; done)"
echo "$count moments in $total s, $failures failures"
[ "$failures" = 0 ] || exit 1
echo "ok: $count kills from outside"
