# ctrl on samples/slow_output under a --time-limit that stops an execution
# half-way (issue 22, item 12): afterwards out.txt must not be half-written.
# Either it is as at the checkpoint ("header" alone: the JSON report says
# files.left_as "checkpoint" and stderr says so), or, when the limit came
# between two executions, as the last complete execution wrote it (the
# header and its 100 lines, files.left_as "last-execution").
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<slow_output>
#         [-DCTRL_ARGS="--time-limit 2"] [-DPROGRAM_ARGS=800] -P check_time_limit_files.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
separate_arguments(program_args UNIX_COMMAND "${PROGRAM_ARGS}")
e2e_fresh_workdir()

e2e_exec(run "${CTRL}" attach ${ctrl_args} --json "${WORKDIR}/report.json" --trace-dir "${WORKDIR}/traces"
  "${PROGRAM}" ${program_args})
# 0: some execution completed; 2: the limit came during the first one.
e2e_expect_exit("${run_rc}" "0|2" "ctrl attach")
if(NOT EXISTS "${WORKDIR}/report.json")
  e2e_fail("ctrl wrote no JSON report")
endif()
file(READ "${WORKDIR}/report.json" json)
e2e_log("-- report.json:\n${json}\n")
string(JSON interrupted GET "${json}" interrupted)
if(NOT interrupted)
  e2e_fail("the run was not interrupted by the time limit: nothing tested")
endif()
string(JSON left_as ERROR_VARIABLE error GET "${json}" files left_as)
if(error)
  e2e_fail("the JSON report has no files.left_as (${error})")
endif()

set(complete "header\n")
foreach(i RANGE 1 100)
  string(APPEND complete "line ${i}\n")
endforeach()
if(NOT EXISTS "${WORKDIR}/out.txt")
  e2e_fail("out.txt is gone after the run; main created it before its thread")
endif()
file(READ "${WORKDIR}/out.txt" got)
string(LENGTH "${got}" got_size)
if(left_as STREQUAL "checkpoint")
  if(NOT got STREQUAL "header\n")
    e2e_fail("files.left_as is checkpoint, but out.txt holds ${got_size} bytes, not the checkpoint's \"header\" line")
  endif()
  # (A run that exits 2 says it at the end of its one line.)
  if(NOT run_err MATCHES "the files are put back as they were at the checkpoint")
    e2e_fail("stderr does not say that the files were put back as at the checkpoint")
  endif()
  string(JSON why GET "${json}" files why)
  if(NOT why MATCHES "stopped half-way by the time limit")
    e2e_fail("files.why is '${why}', expected the execution stopped half-way by the time limit")
  endif()
elseif(left_as STREQUAL "last-execution")
  if(NOT got STREQUAL complete)
    e2e_fail("files.left_as is last-execution, but out.txt holds ${got_size} bytes, not one whole execution's output")
  endif()
else()
  e2e_fail("files.left_as is '${left_as}', expected checkpoint or last-execution")
endif()
message(STATUS "ok: exit status ${run_rc}, files left as ${left_as}")
