# One end-to-end run of `ctrl attach` on a program, with its JSON report
# checked, and optionally a replay of the bug it found.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<program>
#         [-DPROGRAM_ARGS="a b"] [-DCTRL_ARGS="--strategy random --seed 1"]
#         -DEXPECT_EXIT=0|1|2|0|1 [-DEXPECT_KIND=deadlock] [-DREPLAY=ON]
#         [-DEXPECT_TOTAL=N] [-DREPEAT=ON] [-DEXPECT_OUTPUT=<regex>]
#         [-DEXPECT_MIN_COMPLETE=N] [-DMAX_ELAPSED=SECONDS] [-DEXPECT_JSON=<regex>]
#         -P check_run.cmake
#
# EXPECT_EXIT may list several statuses ("0|1") when the outcome is not known
# in advance. Checks, in order:
#  - ctrl attach <CTRL_ARGS> --json .. --trace-dir .. PROGRAM <PROGRAM_ARGS>,
#    run inside WORKDIR, exits with EXPECT_EXIT (exit 2: one line on stderr);
#  - for 0 and 1, the JSON report has every key with the right type, at least
#    one execution, and no more than --max-executions; the strategy is the one
#    asked for; exit 0 means no bug, exit 1 exactly one bug (attach stops at
#    the first) of kind EXPECT_KIND, whose trace file exists in the trace
#    directory;
#  - EXPECT_TOTAL: executions.total is exactly that;
#  - EXPECT_MIN_COMPLETE: executions.complete is at least that;
#  - EXPECT_OUTPUT: ctrl's stdout or stderr matches the regex (also on exit 2);
#  - EXPECT_JSON: the text of the JSON report matches the regex (also on exit 2);
#  - MAX_ELAPSED: elapsed_seconds is at most that;
#  - REPEAT: a second identical run ends the same way (same exit status,
#    number of executions, bug kind and index of the buggy execution);
#  - REPLAY (when a bug was found): ctrl replay --json .. <trace> exits 1 and
#    reports a bug of the same kind; REPLAY_TIMES=N (default 1) times, each
#    a new process (what a program reads from outside may differ each time).

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

foreach(var PROGRAM EXPECT_EXIT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_run.cmake: -D${var}=... is required")
  endif()
endforeach()
separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
separate_arguments(program_args UNIX_COMMAND "${PROGRAM_ARGS}")

e2e_fresh_workdir()

# The values of `--option value` in CTRL_ARGS, for the checks below.
function(option_value var option)
  list(FIND ctrl_args "${option}" at)
  set(value "")
  if(at GREATER_EQUAL 0)
    math(EXPR at "${at} + 1")
    list(LENGTH ctrl_args n)
    if(at LESS n)
      list(GET ctrl_args ${at} value)
    endif()
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()
option_value(strategy --strategy)
option_value(max_executions --max-executions)

# One `ctrl attach` in WORKDIR/<sub>, checked; sets <prefix>_* like
# e2e_check_report, plus <prefix>_rc.
function(attach_and_check prefix sub)
  set(dir "${WORKDIR}/${sub}")
  file(MAKE_DIRECTORY "${dir}/traces")
  set(what "ctrl attach (${sub})")
  e2e_exec(run "${CTRL}" attach ${ctrl_args}
    --json "${dir}/report.json" --trace-dir "${dir}/traces"
    "${PROGRAM}" ${program_args})
  set(${prefix}_rc "${run_rc}" PARENT_SCOPE)
  e2e_expect_exit("${run_rc}" "${EXPECT_EXIT}" "${what}")
  # A run that checked nothing exits 2 too (controller/reports/Verdict.h): its
  # summary and JSON report are checked as well.
  if(DEFINED EXPECT_OUTPUT AND NOT "${run_out}\n${run_err}" MATCHES "${EXPECT_OUTPUT}")
    e2e_fail("${what}: the output does not match '${EXPECT_OUTPUT}'")
  endif()
  if(DEFINED EXPECT_JSON)
    if(EXISTS "${dir}/report.json")
      file(READ "${dir}/report.json" json_text)
    endif()
    if(NOT "${json_text}" MATCHES "${EXPECT_JSON}")
      e2e_fail("${what}: the JSON report does not match '${EXPECT_JSON}'")
    endif()
  endif()
  if(run_rc EQUAL 2)
    e2e_expect_bad_input(run "${what}")
    return()
  endif()

  e2e_check_report(report "${dir}/report.json" "${what}")
  foreach(v json total elapsed nbugs kind execution thread trace)
    set(${prefix}_${v} "${report_${v}}" PARENT_SCOPE)
  endforeach()

  get_filename_component(program_name "${PROGRAM}" NAME)
  string(JSON program GET "${report_json}" program)
  string(FIND "${program}" "${program_name}" found)
  if(found EQUAL -1)
    e2e_fail("${what}: \"program\" is '${program}', which does not name ${program_name}")
  endif()
  if(NOT strategy STREQUAL "")
    string(JSON got GET "${report_json}" strategy)
    if(NOT got STREQUAL strategy)
      e2e_fail("${what}: \"strategy\" is '${got}', expected '${strategy}'")
    endif()
  endif()
  if(NOT max_executions STREQUAL "" AND report_total GREATER max_executions)
    e2e_fail("${what}: executions.total is ${report_total}, more than --max-executions ${max_executions}")
  endif()
  if(DEFINED EXPECT_TOTAL AND NOT report_total EQUAL EXPECT_TOTAL)
    e2e_fail("${what}: executions.total is ${report_total}, expected ${EXPECT_TOTAL}")
  endif()
  if(DEFINED EXPECT_MIN_COMPLETE)
    string(JSON report_complete GET "${report_json}" executions complete)
    if(report_complete LESS EXPECT_MIN_COMPLETE)
      e2e_fail("${what}: executions.complete is ${report_complete}, expected at least ${EXPECT_MIN_COMPLETE}")
    endif()
  endif()
  if(DEFINED MAX_ELAPSED AND report_elapsed GREATER MAX_ELAPSED)
    e2e_fail("${what}: elapsed_seconds is ${report_elapsed}, expected at most ${MAX_ELAPSED}")
  endif()

  if(run_rc EQUAL 0)
    if(NOT report_nbugs EQUAL 0)
      e2e_fail("${what}: exit status 0 (no bug) but the report lists ${report_nbugs} bug(s)")
    endif()
    return()
  endif()
  # Exit status 1.
  if(NOT report_nbugs EQUAL 1)
    e2e_fail("${what}: exit status 1, expected exactly one bug in the report (attach stops at the first), got ${report_nbugs}")
  endif()
  if(DEFINED EXPECT_KIND AND NOT report_kind STREQUAL EXPECT_KIND)
    e2e_fail("${what}: found a bug of kind '${report_kind}', expected '${EXPECT_KIND}'")
  endif()
  file(REAL_PATH "${dir}/traces" trace_dir)
  file(REAL_PATH "${report_trace}" trace)
  cmake_path(IS_PREFIX trace_dir "${trace}" NORMALIZE in_trace_dir)
  if(NOT in_trace_dir)
    e2e_fail("${what}: the trace ${report_trace} is not in the --trace-dir ${dir}/traces")
  endif()
endfunction()

attach_and_check(first first)
if(first_rc EQUAL 2)
  return()
endif()

if(REPEAT)
  attach_and_check(second second)
  if(NOT second_rc EQUAL first_rc)
    e2e_fail("the same run twice: exit status ${first_rc}, then ${second_rc}")
  endif()
  if(NOT second_total EQUAL first_total)
    e2e_fail("the same run twice: ${first_total} executions, then ${second_total}")
  endif()
  if(first_rc EQUAL 1)
    if(NOT second_kind STREQUAL first_kind OR NOT second_execution EQUAL first_execution)
      e2e_fail("the same run twice: a ${first_kind} in execution ${first_execution}, then a ${second_kind} in execution ${second_execution}")
    endif()
  endif()
endif()

if(NOT DEFINED REPLAY_TIMES)
  set(REPLAY_TIMES 1)
endif()
foreach(replay_round RANGE 1 ${REPLAY_TIMES})
if(REPLAY AND first_rc EQUAL 1)
  set(what "ctrl replay")
  if(REPLAY_TIMES GREATER 1)
    set(what "ctrl replay (${replay_round} of ${REPLAY_TIMES})")
  endif()
  e2e_exec(replay "${CTRL}" replay --json "${WORKDIR}/replay.json" "${first_trace}")
  e2e_expect_exit("${replay_rc}" 1 "${what} of ${first_trace}")
  e2e_check_report(replayed "${WORKDIR}/replay.json" "${what}" REPLAY)
  if(replayed_nbugs LESS 1)
    e2e_fail("${what}: exit status 1 but no bug in its report")
  endif()
  if(NOT replayed_kind STREQUAL first_kind)
    e2e_fail("${what}: replaying a ${first_kind} gave a ${replayed_kind}")
  endif()
endif()
endforeach()

if(first_rc EQUAL 1)
  set(found ", found a ${first_kind} in execution ${first_execution}")
endif()
message(STATUS "ok: exit status ${first_rc} after ${first_total} execution(s)${found}")
