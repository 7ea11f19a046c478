# ctrl on samples/file_consume_bug, which renames its input in a thread: the
# bug is found, the input is back afterwards (the files as at the
# checkpoint), and `ctrl replay` in the same directory reproduces the bug.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<file_consume_bug>
#         -P check_replay_files.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

e2e_fresh_workdir()
file(WRITE "${WORKDIR}/input.txt" "input\n")
e2e_exec(run "${CTRL}" attach --json "${WORKDIR}/report.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${run_rc}" 1 "ctrl attach")
e2e_check_report(report "${WORKDIR}/report.json" "ctrl attach")
if(NOT report_kind STREQUAL "assertion")
  e2e_fail("found a ${report_kind}, expected an assertion")
endif()
if(NOT EXISTS "${WORKDIR}/input.txt" OR EXISTS "${WORKDIR}/done.txt")
  e2e_fail("after the run that found the bug, input.txt is not back (or done.txt is left)")
endif()
e2e_exec(replay "${CTRL}" replay --json "${WORKDIR}/replay.json" "${report_trace}")
e2e_expect_exit("${replay_rc}" 1 "ctrl replay")
message(STATUS "ok: the bug is found, the input is back, the replay reproduces it")
