#!/usr/bin/env bash
# Faults from outside (issue 26): ctrl never hangs, never blames the program,
# never exits 3, and says what happened in one line.
#
#   faults.sh CTRL MODE WORKDIR PROGRAM [BUG_PROGRAM]
#
# MODE:
#   killed      PROGRAM (correct, many short executions) is killed with
#               SIGKILL from outside at 12 moments (seeded, 0-1.2 s after
#               ctrl's start: start-up, executions, the fork server):
#               ctrl ends within 5 s each time, exit 2 with "killed from
#               outside ctrl" (or 0 when the kill came before the program
#               ran), never 1 or 3, and no process of the program is left.
#   term-start  SIGTERM right after ctrl's start, before its session reads
#               signals: exit 2, "stopped by SIGTERM during start-up", no
#               --json file left (it was left with 0 bytes).
#   ignored     SIGINT inherited as ignored stays ignored: a SIGINT during
#               the run does not stop it (exit 0, a full run).
#   json-full   --json /dev/full after a found bug (BUG_PROGRAM): exit 1, one
#               line about the report (it was exit 2).
#   trace-dir   a run without a bug leaves no --trace-dir behind; an
#               existing directory that cannot be written is refused at
#               once (exit 2; root too: a read-only /proc entry).
#   strace      ctrl under `strace -f`: exit 2, one line naming the tracer.
set -u
ctrl=$1 mode=$2 workdir=$3 program=$4 bug=${5:-}
rm -rf "$workdir" && mkdir -p "$workdir" && cd "$workdir" || exit 1
fail() {
  echo "FAIL: $*"
  for f in out err; do
    echo "---- $f ----"
    cat "$f" 2>/dev/null
  done
  exit 1
}
name="fk$$"
name=${name:0:15}
cp "$program" "$name" && chmod 755 "$name" || exit 1

# Waits up to $2 s for pid $1 to end; fails if it does not.
wait_end() {
  for _ in $(seq $(($2 * 20))); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.05
  done
  kill -9 "$1"
  fail "ctrl still running $2 s after $3"
}

case $mode in
  killed)
    RANDOM=26
    for i in $(seq 12); do
      delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.05 + (r % 115) / 100 }')
      "$ctrl" attach --trace-dir traces --strategy random --max-executions 1000000 --time-limit 30 "./$name" \
        >out 2>err &
      pid=$!
      sleep "$delay"
      # Too early (before the exec): nothing to kill; ctrl is stopped instead.
      missed=0
      pkill -9 -x "$name" || { missed=1; kill -TERM "$pid"; }
      wait_end "$pid" 5 "its program was killed ($delay s)"
      wait "$pid"
      rc=$?
      echo "kill at $delay s: exit $rc: $(tail -1 err)"
      case $rc in
        2)
          [ $missed = 1 ] && grep -q "SIGTERM" err && continue
          grep -q "killed from outside ctrl" err || fail "exit 2 without saying the program was killed"
          ;;
        0) ;;
        *) fail "exit $rc after the program was killed from outside" ;;
      esac
      grep -q "bug" out && fail "a bug was reported"
      # The kernel ends what is left (EXITKILL, parent-death signals) as
      # ctrl exits: moments on a loaded machine.
      for _ in $(seq 60); do pgrep -x "$name" >/dev/null || break; sleep 0.05; done
      pgrep -x "$name" >/dev/null && { pkill -9 -x "$name"; fail "processes of the program left"; }
    done
    ;;
  term-start)
    # SIGTERM at several moments of the start-up. Before main's first line
    # (the loader mapping ctrl) the default action still applies: killed
    # by it, but no --json file made yet. From main on: exit 2, one line,
    # never a 0-byte report. At least one moment must be in start-up (on a
    # fast machine ctrl's start-up is over before 20 ms: 9 executions had
    # run by then).
    clean=0
    for delay in 0.002 0.005 0.01 0.015 0.02 0.04 0.06 0.08 0.1 0.12 0.15; do
      rm -f report.json
      "$ctrl" attach --json report.json --max-executions 1000000 --strategy random "./$name" >out 2>err &
      pid=$!
      sleep "$delay"
      kill -TERM "$pid"
      wait_end "$pid" 5 SIGTERM
      wait "$pid"
      rc=$?
      echo "SIGTERM at $delay s: exit $rc: $(cat err)"
      [ -e report.json ] && [ ! -s report.json ] && fail "a 0-byte report.json was left"
      case $rc in
        2)
          [ "$(wc -l <err)" = 1 ] || fail "expected one line on stderr"
          grep -q "SIGTERM" err && clean=$((clean + 1))
          ;;
        0 | 1) ;; # past the start-up: the run stopped with its report
        143) [ -e report.json ] && fail "killed by SIGTERM after the report file was made" ;;
        *) fail "exit $rc after SIGTERM in start-up" ;;
      esac
    done
    [ $clean -gt 0 ] || fail "no SIGTERM came during start-up"
    ;;
  ignored)
    # A background job of a non-interactive shell: SIGINT ignored.
    (trap '' INT; exec "$ctrl" attach "./$name" >out 2>err) &
    pid=$!
    sleep 0.3
    kill -INT "$pid"
    wait_end "$pid" 60 "the run"
    wait "$pid"
    rc=$?
    echo "exit $rc"
    [ "$rc" = 0 ] || fail "exit $rc, expected 0"
    grep -q "interrupted" out && fail "the ignored SIGINT stopped the run"
    ;;
  json-full)
    cp "$bug" bug && chmod 755 bug || exit 1
    "$ctrl" attach --json /dev/full --trace-dir traces ./bug >out 2>err
    rc=$?
    echo "exit $rc: $(cat err)"
    [ "$rc" = 1 ] || fail "exit $rc with a bug found and --json /dev/full, expected 1"
    grep -q -- "--json: cannot write /dev/full" err || fail "the failed write is not said"
    ;;
  trace-dir)
    "$ctrl" attach --trace-dir new/traces "./$name" >out 2>err
    rc=$?
    [ "$rc" = 0 ] || fail "exit $rc, expected 0"
    [ -e new ] && fail "a run without a bug left its trace directory"
    # Killed with SIGKILL mid-run: no empty directory either (it was made
    # at the start).
    "$ctrl" attach --trace-dir killed/traces --strategy random --max-executions 1000000 "./$name" >out 2>err &
    pid=$!
    sleep 1
    kill -9 "$pid"
    wait "$pid"
    [ -e killed ] && fail "a ctrl killed with SIGKILL left an empty trace directory"
    mkdir ro && chmod 500 ro
    "$ctrl" attach --trace-dir ro "./$name" >out 2>err
    rc=$?
    echo "read-only directory: exit $rc: $(cat err)"
    if [ "$(id -u)" != 0 ]; then
      [ "$rc" = 2 ] || fail "exit $rc with an unwritable --trace-dir, expected 2"
    fi
    "$ctrl" attach --trace-dir /proc/self "./$name" >out 2>err
    rc=$?
    echo "/proc/self: exit $rc: $(cat err)"
    [ "$rc" = 2 ] || fail "exit $rc with --trace-dir /proc/self, expected 2"
    grep -q "before\|executions" out && fail "the exploration ran before the --trace-dir was refused"
    ;;
  strace)
    # ctrl under `strace -f`: the program is strace's tracee; refused in one
    # line, exit 2 (it was an internal error, then a hang).
    command -v strace >/dev/null || { echo "strace not installed: skipped"; exit 0; }
    timeout 30 strace -f -o /dev/null "$ctrl" attach "./$name" >out 2>err
    rc=$?
    echo "exit $rc: $(tail -1 err)"
    [ "$rc" = 2 ] || fail "exit $rc under strace -f, expected 2"
    grep -q "already traced by another process" err || fail "the other tracer is not named"
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
echo "ok: $mode"
