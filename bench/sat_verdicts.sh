#!/usr/bin/env bash
# --strategy sat against dpor (issue 24): the verdict (ctrl's exit status:
# 0 no bug, 1 bug) of each program under both, each run limited to LIMIT
# seconds (default 30), and whether sat finished (behaviour-complete).
#
#   bash bench/sat_verdicts.sh CTRL BINDIR [LIMIT] PROGRAM...
#
# MODEL (environment): the memory model of both, sc (default) or tso.
set -u
MODEL=${MODEL:-sc}
CTRL=$(realpath "$1"); BIN=$(realpath "$2"); LIMIT=${3:-30}; shift 3
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
printf '%-36s %5s %5s %8s %s\n' program dpor sat agree sat_line
for p in "$@"; do
  "$CTRL" attach --strategy dpor --model "$MODEL" --time-limit "$LIMIT" --trace-dir "$W/t" -- "$BIN/$p" >/dev/null 2>&1; d=$?
  out=$("$CTRL" attach --strategy sat --model "$MODEL" --time-limit "$LIMIT" --trace-dir "$W/t" -- "$BIN/$p" 2>&1); s=$?
  line=$(echo "$out" | grep -E "executions \(|stops" | tr '\n' ' ')
  a=yes; [ "$d" = "$s" ] || a=NO
  printf '%-36s %5s %5s %8s %s\n' "$p" "$d" "$s" "$a" "${line:0:160}"
done
