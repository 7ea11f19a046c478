# An end-to-end run of ctrl on samples/file_changes, whose executions write,
# create, rename and remove files: after the run the directory must be what
# one native run of the program leaves, and its stdout (redirected to a
# file, with SHOW_OUTPUT: --show-output) must hold exactly one execution's
# output.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<file_changes>
#         [-DCTRL_ARGS="--strategy random"] [-DEXPECT_TOTAL=N] [-DSHOW_OUTPUT=ON]
#         -P check_files.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
if(SHOW_OUTPUT)
  list(PREPEND ctrl_args --show-output)
endif()
e2e_fresh_workdir()

# ctrl's stdout and the target's are one file, as with `ctrl attach .. > out`.
string(TIMESTAMP now "%s" UTC)
math(EXPR left "${E2E_BUDGET} - (${now} - ${E2E_START})")
execute_process(COMMAND "${CTRL}" attach ${ctrl_args} --json "${WORKDIR}/report.json"
    --trace-dir "${WORKDIR}/traces" "${PROGRAM}"
  WORKING_DIRECTORY "${WORKDIR}"
  RESULT_VARIABLE rc OUTPUT_FILE "${WORKDIR}/out.txt" ERROR_VARIABLE err TIMEOUT ${left})
file(READ "${WORKDIR}/out.txt" out)
e2e_log("$ ctrl attach ${ctrl_args} .. ${PROGRAM} > out.txt\n-> exit status: ${rc}\n-- out.txt:\n${out}\n-- stderr:\n${err}\n")
e2e_expect_exit("${rc}" 0 "ctrl attach")
e2e_check_report(report "${WORKDIR}/report.json" "ctrl attach")
if(DEFINED EXPECT_TOTAL AND NOT report_total EQUAL EXPECT_TOTAL)
  e2e_fail("executions.total is ${report_total}, expected ${EXPECT_TOTAL}")
endif()
if(report_total LESS 2)
  e2e_fail("only ${report_total} execution(s): nothing to undo was tested")
endif()

# file, expected contents ("" for: must not exist).
function(expect_file name expected)
  set(path "${WORKDIR}/${name}")
  if(expected STREQUAL "")
    if(EXISTS "${path}")
      e2e_fail("${name} exists after the run; the program removed (or renamed) it")
    endif()
    return()
  endif()
  if(NOT EXISTS "${path}")
    e2e_fail("${name} does not exist after the run")
  endif()
  file(READ "${path}" got)
  if(NOT got STREQUAL expected)
    e2e_fail("${name} holds '${got}', expected '${expected}'")
  endif()
endfunction()

expect_file(made.txt "made by T1\n")
expect_file(moved.txt "input\n")
expect_file(input.txt "")
expect_file(data.txt "new\n")
expect_file(gone.txt "")
expect_file(held.txt "")
file(GLOB kept "${WORKDIR}/.ctrl-keep-*")
if(kept)
  e2e_fail("links ctrl kept to undo removals are left behind: ${kept}")
endif()
file(READ "${WORKDIR}/log.txt" log)
if(NOT log STREQUAL "header\nfrom T1\nfrom T2\n" AND NOT log STREQUAL "header\nfrom T2\nfrom T1\n")
  e2e_fail("log.txt holds '${log}', expected the header and one line from each worker")
endif()
expect_file(stderr.txt "execution stderr\n")
if(SHOW_OUTPUT)
  foreach(line "stdout header" "execution output")
    string(REGEX MATCHALL "${line}" found "${out}")
    list(LENGTH found n)
    if(NOT n EQUAL 1)
      e2e_fail("the redirected stdout holds '${line}' ${n} times, expected once")
    endif()
  endforeach()
endif()
message(STATUS "ok: ${report_total} executions, the files are those of one native run")
