#!/usr/bin/env bash
# One test of the realworld suite: runs a real program natively and under
# ctrl, and checks that ctrl finds no bug (exit 0: no false bug, no internal
# error) and that every execution printed exactly what the native run did.
#
# Usage:
#   run_realworld.sh CTRL GEN_TEXT WORKDIR MODE SIZE DECOMPRESS -- PROGRAM ARGS...
# MODE: random (--strategy random --max-executions 5) or dpor:SECONDS
# (DPOR under --time-limit SECONDS). SIZE: bytes of generated input text,
# optionally :WORDS, the most words per line (gen_text's default if empty).
# DECOMPRESS: "-" for a program whose output is text, else the command that
# decompresses the program's output from stdin to stdout. In ARGS, @INPUT@
# stands for the input file and @TREE@ for a directory tree made of copies
# of it (tree/d1..d3/f1..f4.txt), two of whose files (tree/d2/needle.txt,
# tree/d3/f2-needle.txt) hold lines with the word "needle" (for a search
# tool and a file finder). Extra ctrl options: CTRL_EXTRA_OPTIONS.
#
# How every execution's output is checked: the program writes to stdout, and
# ctrl runs it with --show-output through a pipe, so the executions' outputs
# follow each other there (a pipe has no offset that restoring file state
# could rewind). ctrl's stdout is its header lines ("ctrl: ..."), then the
# program's output (what the program wrote before its first pthread_create,
# once, then each execution's in turn), then a blank line and the summary.
# With no bug, the middle part must be the native output once per complete
# execution, byte for byte, with at most a prefix of it from each execution
# that did not finish (blocked, or stopped by --time-limit). Executions cut
# by --max-steps fail the test: their output is partial and they ran short.
# (A ctrl option writing each execution's output to its own file would make
# this exact; see the suite's CMakeLists.txt.)
#
# Exit status: 0 pass, 1 fail (with everything ctrl printed), 77 skip (a
# tool is missing).
set -u

if [ $# -lt 8 ] || [ "$7" != "--" ]; then
  echo "usage: run_realworld.sh CTRL GEN_TEXT WORKDIR MODE SIZE DECOMPRESS -- PROGRAM ARGS..." >&2
  exit 2
fi
ctrl=$1 gen=$2 work=$3 mode=$4 size=${5%%:*} words=${5#*:} decompress=$6
[ "$words" != "$5" ] || words=
shift 7
program=$1
shift

if ! command -v "$program" >/dev/null 2>&1; then
  echo "SKIP: $program is not installed (bash scripts/setup.sh test installs it)"
  exit 77
fi
if [ "$decompress" != "-" ] && ! command -v "${decompress%% *}" >/dev/null 2>&1; then
  echo "SKIP: ${decompress%% *} is not installed (bash scripts/setup.sh test installs it)"
  exit 77
fi
program=$(command -v "$program")

rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
"$gen" "$size" input.txt $words || { echo "FAIL: cannot generate the input"; exit 1; }

case " $* " in
  *@TREE@*)
    for d in 1 2 3; do
      mkdir -p tree/d$d
      for f in 1 2 3 4; do cp input.txt tree/d$d/f$f.txt; done
    done
    { head -c 2000 input.txt; printf 'a needle in d2\n'; } >tree/d2/needle.txt
    { printf 'needle first\n'; head -c 3000 input.txt; printf 'the last needle\n'; } >tree/d3/f2-needle.txt
    ;;
esac

args=()
for a in "$@"; do
  a=${a//@INPUT@/input.txt}
  args+=("${a//@TREE@/tree}")
done

fail() {
  echo "FAIL: $*"
  echo "---- command: $ctrl ${ctrl_opts[*]} -- $program ${args[*]} (in $work)"
  echo "---- ctrl exit status: ${ctrl_rc:-not run}"
  if [ -f ctrl.stdout ]; then
    echo "---- ctrl stdout, first and last lines (as text):"
    head -c 3000 ctrl.stdout | head -n 20 | cut -c1-300
    echo "[...]"
    tail -c 6000 ctrl.stdout | tail -n 60 | cut -c1-300
  fi
  if [ -f ctrl.stderr ]; then
    echo "---- ctrl stderr (last 60 lines):"
    tail -n 60 ctrl.stderr | cut -c1-300
  fi
  [ -f report.json ] && { echo "---- report.json:"; cat report.json; echo; }
  exit 1
}

# The reference: the native run (twice: the test relies on the program
# printing the same bytes every time).
"$program" "${args[@]}" >native.out 2>native.err
native_rc=$?
[ $native_rc -eq 0 ] || { cat native.err; echo "FAIL: the native run exited with $native_rc"; exit 1; }
"$program" "${args[@]}" >native2.out 2>/dev/null
cmp -s native.out native2.out || { echo "FAIL: two native runs printed different output"; exit 1; }
[ -s native.out ] || { echo "FAIL: the native run printed nothing"; exit 1; }
if [ "$decompress" != "-" ]; then
  $decompress <native.out >native.dec || { echo "FAIL: '$decompress' cannot read the native output"; exit 1; }
  cmp -s native.dec input.txt || { echo "FAIL: the native output does not decompress to the input"; exit 1; }
fi

# A ctrl that does not end (a thread asleep in the kernel that nothing
# reports as a hang) is stopped (SIGTERM, then SIGKILL) well within the
# test's own TIMEOUT, so that the test still says what ctrl printed.
case "$mode" in
  random) ctrl_opts=(attach --strategy random --max-executions 5) deadline=100 ;;
  dpor:*) ctrl_opts=(attach --strategy dpor --time-limit "${mode#dpor:}") deadline=$((${mode#dpor:} + 90)) ;;
  *) echo "bad MODE $mode" >&2; exit 2 ;;
esac
# shellcheck disable=SC2206
ctrl_opts+=(--show-output --json report.json ${CTRL_EXTRA_OPTIONS:-})

start=$(date +%s%N)
# Through a pipe (cat), see above; the program's arguments after "--".
timeout -k 10 $deadline "$ctrl" "${ctrl_opts[@]}" -- "$program" "${args[@]}" 2>ctrl.stderr | cat >ctrl.stdout
ctrl_rc=${PIPESTATUS[0]}
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "ctrl exited with $ctrl_rc after $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"

[ "$ctrl_rc" -ne 124 ] && [ "$ctrl_rc" -ne 137 ] || fail "ctrl did not end within $deadline s (stopped by timeout)"
[ -f report.json ] || fail "ctrl wrote no JSON report"
# The report's "executions" object, without its nested "probes" (whose keys
# repeat the outer ones).
report=$(tr -d ' \n' < report.json)
executions=$(printf '%s\n' "$report" | sed -n 's/.*"executions":{//p' | sed 's/"probes":{[^}]*}//; s/}.*//')
json_int() { printf '%s\n' "$executions" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -n 1; }
json_any_int() { printf '%s\n' "$report" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -n 1; }
total=$(json_int total)
complete=$(json_int complete)
blocked=$(json_int blocked)
summary=$(tail -n 1 ctrl.stdout)
echo "ctrl: $summary"
case $ctrl_rc in
  0) ;;
  1) fail "ctrl reported a bug in a correct program (false bug)" ;;
  2) fail "ctrl refused the program (exit 2)" ;;
  3) fail "ctrl failed with an internal error (exit 3)" ;;
  *) fail "ctrl exited with $ctrl_rc" ;;
esac
[ -n "$total" ] && [ "$total" -gt 0 ] || fail "no execution in the report"
case "$summary" in
  *"cut by --max-steps"*) fail "executions were cut by --max-steps: their output is partial" ;;
esac

# The program's output: after the header lines, before "\n" + summary + "\n".
header=0
while IFS= read -r line; do
  case "$line" in
    "ctrl: "*) header=$((header + ${#line} + 1)) ;;
    *) break ;;
  esac
done <ctrl.stdout
tail_bytes=$(( $(printf '%s' "$summary" | wc -c) + 2 ))
all=$(stat -c %s ctrl.stdout)
body=$((all - header - tail_bytes))
[ $body -ge 0 ] || fail "ctrl's stdout is shorter than its own header and summary"
tail -c +$((header + 1)) ctrl.stdout | head -c $body >program.out

# Split the output into the executions' outputs. Each must be the native
# output or, for an execution that did not run to its end (blocked: DPOR
# abandoned it as redundant; or stopped by --time-limit), a prefix of it.
# The outputs are not delimited: a segment is the longest common prefix of
# the rest with the native output (an execution cut short whose output is
# followed by one that starts like the rest of the native output would be
# misread, and make the test fail, never pass).
want=$(stat -c %s native.out)
# matched POS OFF: how many bytes of the output under ctrl from POS are the
# native output from OFF on (to its end at most).
matched() {
  local left=$((body - $1)) whole=$((want - $2))
  local n=$((left < whole ? left : whole))
  if cmp -s -n $n -i $1:$2 program.out native.out; then
    echo $n
  else
    local at
    at=$(cmp -n $n -i $1:$2 program.out native.out 2>&1 | sed -n 's/.*differ: [a-z]* \([0-9]*\).*/\1/p')
    [ -n "$at" ] && echo $((at - 1))
  fi
}
# What the program wrote before its first thread (7z: the xz stream header)
# is shown once per session, not per execution: the executions after a
# session's first print the native output from that many bytes on. Its
# length is found at the second execution's output (at most 4096 bytes).
pos=0 full=0 partial=0 pre=0 first=1
# The common case at once (thousands of short executions would take minutes
# of cmp calls): the output is whole copies of the native output, i.e. it
# begins with it and repeats with its length as period.
if [ $body -gt 0 ] && [ $((body % want)) -eq 0 ] && cmp -s -n $want program.out native.out &&
  cmp -s -n $((body - want)) -i 0:$want program.out program.out; then
  full=$((body / want)) pos=$body
fi
while [ $pos -lt $body ]; do
  len=$(matched $pos 0) || fail "cannot compare the output at byte $pos with the native output"
  off=0
  if [ "$len" != "$want" ] && [ $first -eq 0 ]; then
    if [ $pre -eq 0 ] && [ $full -eq 1 ]; then
      for ((k = 1; k <= 4096 && k < want; k++)); do
        if cmp -s -n 64 -i $pos:$k program.out native.out; then pre=$k; break; fi
      done
      [ $pre -eq 0 ] || echo "the program wrote $pre bytes before its first thread (shown once per session)"
    fi
    if [ $pre -gt 0 ]; then
      with_pre=$(matched $pos $pre) || fail "cannot compare the output at byte $pos with the native output"
      [ "$with_pre" -le "$len" ] || { len=$with_pre; off=$pre; }
    fi
  fi
  first=0
  if [ "$len" -eq $((want - off)) ]; then
    full=$((full + 1))
  elif [ "$len" -gt 0 ]; then
    partial=$((partial + 1))
    echo "output of an execution cut short at byte $pos: $len of $((want - off)) bytes"
  else
    echo "---- at byte $pos of the output under ctrl:"
    tail -c +$((pos + 1)) program.out | head -c 300 | od -c | head -n 8
    echo "---- the native output begins:"
    head -c 300 native.out | od -c | head -n 8
    fail "the output under ctrl at byte $pos ($full whole copies of the native output before it, $partial cut short) is not a prefix of the native output"
  fi
  pos=$((pos + len))
done
interrupted=$(sed -n 's/.*"interrupted": *\([a-z]*\).*/\1/p' report.json | head -n 1)
echo "output: $full whole copies of the native output, $partial cut short; executions: $complete complete, $blocked blocked, interrupted: $interrupted"
# Every complete execution printed the whole native output; executions that
# were not complete may have too (blocked after the last write). One more
# may have been cut by the time limit (it is not counted in the report).
[ $full -ge "$complete" ] || fail "only $full whole copies of the native output for $complete complete executions"
limit=$total
[ "$interrupted" != "true" ] || limit=$((total + 1))
# --visible auto that fell back to atomics (ctrl's summary says so): the
# executions under --visible all before the one cut by --max-steps printed
# their output too (whole ones, and a prefix for the cut one), before the
# exploration started again from the start.
before=$(json_any_int executions_under_all)
if [ -n "$before" ]; then
  echo "--visible auto fell back to atomics after $before executions under all"
  limit=$((limit + before))
  total=$((total + before))
fi
# Own memory found shared (agent/OwnMemory.h; the summary says "explored
# again"): the explorations before the reported one printed their output too.
shared_before=$(json_any_int executions_before)
if [ -n "$shared_before" ] && [ "$shared_before" -gt 0 ]; then
  echo "explored again after own memory was found shared: $shared_before executions before"
  limit=$((limit + shared_before))
  total=$((total + shared_before))
fi
[ $((full + partial)) -le $limit ] || fail "$((full + partial)) outputs for $total executions"
[ $partial -le $((total - complete + limit - total)) ] || fail "$partial executions' outputs cut short, but only $((total - complete)) executions were not complete"
if [ "$decompress" != "-" ]; then
  # Implied by the comparison with the native output, which decompresses
  # to the input; checked on a copy from under ctrl all the same.
  head -c "$want" program.out | $decompress >program.dec || fail "'$decompress' cannot read the output under ctrl"
  cmp -s program.dec input.txt || fail "the output of the first execution under ctrl does not decompress to the input"
fi
# The outputs of hundreds of executions take hundreds of MB: kept only when
# the test fails.
rm -f ctrl.stdout program.out program.dec
echo "PASS: $total executions ($complete complete, $blocked blocked), $full printed the whole native output ($want bytes), $partial a prefix of it"
exit 0
