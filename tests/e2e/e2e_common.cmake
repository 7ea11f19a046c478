# Helpers shared by the end-to-end test scripts (run with cmake -P): running
# ctrl, failing with everything it printed, checking its JSON report.
#
# Expects CTRL and WORKDIR to be set. E2E_BUDGET (seconds, default 110) is
# the time all the commands of the test may take together: keep it below the
# test's TIMEOUT, so that a stuck ctrl is stopped and reported with its output
# instead of the whole test being killed silently.

if(NOT DEFINED E2E_BUDGET)
  set(E2E_BUDGET 110)
endif()
string(TIMESTAMP E2E_START "%s" UTC)
foreach(var CTRL WORKDIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: -D${var}=... is required")
  endif()
endforeach()

set_property(GLOBAL PROPERTY E2E_LOG "")

# Appends one block of text to the log printed on failure.
function(e2e_log text)
  set_property(GLOBAL APPEND_STRING PROPERTY E2E_LOG "${text}\n")
endfunction()

# Ends the test with `msg` and the log of every command run so far (printed
# as it is: message(FATAL_ERROR) would re-wrap ctrl's output).
function(e2e_fail msg)
  get_property(log GLOBAL PROPERTY E2E_LOG)
  message("---- commands run by this test ----\n${log}---- end ----\n")
  message(FATAL_ERROR "E2E FAILURE: ${msg}")
endfunction()

function(e2e_clip var text)
  string(LENGTH "${text}" n)
  if(n GREATER 12000)
    math(EXPR from "${n} - 12000")
    string(SUBSTRING "${text}" ${from} -1 text)
    set(text "[... first ${from} characters cut ...]\n${text}")
  endif()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# e2e_exec(<prefix> <command> [<arg>...]): runs a command in WORKDIR and sets
# <prefix>_rc (exit status, or the text execute_process gives for a signal or
# a time-out), <prefix>_out and <prefix>_err; all of it goes into the log.
function(e2e_exec prefix)
  list(JOIN ARGN "' '" shown)
  string(TIMESTAMP now "%s" UTC)
  math(EXPR left "${E2E_BUDGET} - (${now} - ${E2E_START})")
  if(left LESS 5)
    e2e_fail("out of time (E2E_BUDGET ${E2E_BUDGET} s) before running '${shown}'")
  endif()
  execute_process(COMMAND ${ARGN}
    WORKING_DIRECTORY "${WORKDIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    TIMEOUT ${left})
  e2e_clip(out_shown "${out}")
  e2e_clip(err_shown "${err}")
  e2e_log("$ '${shown}'\n  (in ${WORKDIR})\n-> exit status: ${rc}\n-- stdout:\n${out_shown}\n-- stderr:\n${err_shown}\n")
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# e2e_expect_exit(<rc> <expected>): expected is one status or several
# separated by '|' ("0|1").
function(e2e_expect_exit rc expected what)
  string(REPLACE "|" ";" allowed "${expected}")
  if(NOT rc MATCHES "^[0-9]+$")
    e2e_fail("${what}: ctrl did not exit normally (${rc}), expected exit status ${expected}")
  endif()
  if(NOT rc IN_LIST allowed)
    e2e_fail("${what}: exit status ${rc}, expected ${expected}")
  endif()
endfunction()

# Bad usage or input: exit status 2 and exactly one (non-empty) line on stderr.
function(e2e_expect_bad_input prefix what)
  e2e_expect_exit("${${prefix}_rc}" 2 "${what}")
  string(STRIP "${${prefix}_err}" err)
  if(err STREQUAL "")
    e2e_fail("${what}: exit status 2 but nothing on stderr (expected one line saying what is wrong)")
  endif()
  if(err MATCHES "\n")
    e2e_fail("${what}: exit status 2 but more than one line on stderr (expected exactly one)")
  endif()
endfunction()

# e2e_json_type(<json> <expected type> <what> <member|index>...): fails unless
# the member exists and has the JSON type (NULL, NUMBER, STRING, BOOLEAN,
# ARRAY or OBJECT).
function(e2e_json_type json expected what)
  string(JSON type ERROR_VARIABLE error TYPE "${json}" ${ARGN})
  list(JOIN ARGN "." path)
  if(error)
    e2e_fail("${what}: no member ${path} (${error})")
  endif()
  if(NOT type STREQUAL expected)
    e2e_fail("${what}: ${path} is ${type}, expected ${expected}")
  endif()
endfunction()

# e2e_check_report(<prefix> <json file> <what> [REPLAY]): reads a report
# written by --json, checks its schema and sets in the caller's scope:
#   <prefix>_json, <prefix>_total, <prefix>_elapsed, <prefix>_nbugs, and when
#   there is a bug, <prefix>_kind, <prefix>_execution, <prefix>_thread and
#   <prefix>_trace (the trace as an absolute path, checked to exist).
# A replay's report (REPLAY) need not name a new trace, and its bug's
# execution index may be the one of the recorded run: neither is checked.
function(e2e_check_report prefix file what)
  cmake_parse_arguments(PARSE_ARGV 3 opt "REPLAY" "" "")
  if(NOT EXISTS "${file}")
    e2e_fail("${what}: ctrl wrote no JSON report at ${file}")
  endif()
  file(READ "${file}" json)
  e2e_log("-- ${file}:\n${json}\n")
  string(JSON members ERROR_VARIABLE error LENGTH "${json}")
  if(error)
    e2e_fail("${what}: ${file} is not valid JSON: ${error}")
  endif()
  e2e_json_type("${json}" STRING "${what}" program)
  e2e_json_type("${json}" STRING "${what}" model)
  e2e_json_type("${json}" STRING "${what}" strategy)
  e2e_json_type("${json}" OBJECT "${what}" executions)
  foreach(counter complete blocked total)
    e2e_json_type("${json}" NUMBER "${what}" executions ${counter})
    string(JSON ${counter} GET "${json}" executions ${counter})
    if(NOT ${counter} MATCHES "^[0-9]+$")
      e2e_fail("${what}: executions.${counter} is ${${counter}}, expected a count")
    endif()
  endforeach()
  if(total LESS 1)
    e2e_fail("${what}: executions.total is ${total}, expected at least one execution")
  endif()
  math(EXPR counted "${complete} + ${blocked}")
  if(counted GREATER total)
    e2e_fail("${what}: executions.complete + executions.blocked = ${counted} > executions.total = ${total}")
  endif()
  e2e_json_type("${json}" BOOLEAN "${what}" exhaustive)
  e2e_json_type("${json}" NUMBER "${what}" elapsed_seconds)
  string(JSON elapsed GET "${json}" elapsed_seconds)
  if(elapsed LESS 0)
    e2e_fail("${what}: elapsed_seconds is negative (${elapsed})")
  endif()
  e2e_json_type("${json}" ARRAY "${what}" bugs)
  string(JSON nbugs LENGTH "${json}" bugs)
  set(${prefix}_json "${json}" PARENT_SCOPE)
  set(${prefix}_total "${total}" PARENT_SCOPE)
  set(${prefix}_elapsed "${elapsed}" PARENT_SCOPE)
  set(${prefix}_nbugs "${nbugs}" PARENT_SCOPE)
  if(nbugs EQUAL 0)
    return()
  endif()
  e2e_json_type("${json}" OBJECT "${what}" bugs 0)
  e2e_json_type("${json}" STRING "${what}" bugs 0 kind)
  e2e_json_type("${json}" STRING "${what}" bugs 0 message)
  e2e_json_type("${json}" NUMBER "${what}" bugs 0 thread)
  e2e_json_type("${json}" NUMBER "${what}" bugs 0 execution)
  if(NOT opt_REPLAY)
    e2e_json_type("${json}" STRING "${what}" bugs 0 trace)
  endif()
  string(JSON kind GET "${json}" bugs 0 kind)
  if(NOT kind MATCHES "^(assertion|crash|deadlock|hang|tso-unsafe|data-race|uninitialized-load|sanitizer|panic|exit-status)$")
    e2e_fail("${what}: bugs[0].kind is '${kind}', expected assertion, crash, deadlock, hang, tso-unsafe, data-race, uninitialized-load, sanitizer, panic or exit-status")
  endif()
  string(JSON execution GET "${json}" bugs 0 execution)
  string(JSON thread GET "${json}" bugs 0 thread)
  if(NOT opt_REPLAY AND (execution LESS 0 OR execution GREATER total))
    e2e_fail("${what}: bugs[0].execution is ${execution}, outside 0..executions.total (${total})")
  endif()
  set(${prefix}_kind "${kind}" PARENT_SCOPE)
  set(${prefix}_execution "${execution}" PARENT_SCOPE)
  set(${prefix}_thread "${thread}" PARENT_SCOPE)
  if(opt_REPLAY)
    return()
  endif()
  string(JSON trace GET "${json}" bugs 0 trace)
  if(trace STREQUAL "")
    e2e_fail("${what}: bugs[0].trace is empty")
  endif()
  cmake_path(ABSOLUTE_PATH trace BASE_DIRECTORY "${WORKDIR}")
  if(NOT EXISTS "${trace}" OR IS_DIRECTORY "${trace}")
    e2e_fail("${what}: bugs[0].trace names ${trace}, which is not a file")
  endif()
  set(${prefix}_trace "${trace}" PARENT_SCOPE)
endfunction()

# Starts WORKDIR afresh.
function(e2e_fresh_workdir)
  file(REMOVE_RECURSE "${WORKDIR}")
  file(MAKE_DIRECTORY "${WORKDIR}")
endfunction()
