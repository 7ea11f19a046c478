# The hunt run of a C11 litmus program (README.md, "ctrl runs"): ctrl attach
# --keep-going on `PROGRAM MODEL hunt`, where each allowed outcome fails an
# assertion of its own, must report every one of them, and nothing else.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<program>
#         -DMODEL=sc|rc11|c11 -DOUTCOMES=<n> -DEXECUTIONS=<n> [-DBLOCKED=<regex>]
#         [-DE2E_BUDGET=<s>] -P check_hunt.cmake
#
# Checks: exit status 1; the summary line gives EXECUTIONS complete
# executions, BLOCKED blocked ones (default 0), OUTCOMES bugs and an
# exhaustive exploration; the assertion of each allowed outcome
# 0..OUTCOMES-1 failed; the assertion that the outcome is an allowed one
# did not.
cmake_minimum_required(VERSION 3.20)
include("${E2E_SOURCE_DIR}/e2e_common.cmake")

foreach(var PROGRAM MODEL OUTCOMES EXECUTIONS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_hunt.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED BLOCKED)
  set(BLOCKED 0)
endif()
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")

e2e_exec(run "${CTRL}" attach --model ${MODEL} --strategy dpor --keep-going --trace-dir "${WORKDIR}/traces"
         "${PROGRAM}" ${MODEL} hunt)
if(NOT run_rc STREQUAL "1")
  e2e_fail("ctrl attach: exit status ${run_rc}, expected 1")
endif()
set(out "${run_out}${run_err}")
if(OUTCOMES EQUAL 1)
  set(bugs "1 bug")
else()
  set(bugs "${OUTCOMES} bugs")
endif()
if(NOT out MATCHES "\\(${EXECUTIONS} complete, ${BLOCKED} blocked[^)]*\\), ${bugs}, exhaustive: yes")
  e2e_fail("expected (${EXECUTIONS} complete, ${BLOCKED} blocked), ${bugs}, exhaustive: yes")
endif()
math(EXPR last "${OUTCOMES} - 1")
foreach(i RANGE ${last})
  if(NOT out MATCHES "Assertion `!same\\(outcome, allowed_${MODEL}\\[${i}\\]\\)' failed")
    e2e_fail("allowed outcome ${i} of ${MODEL} was not reached")
  endif()
endforeach()
if(out MATCHES "Assertion `allowed' failed")
  e2e_fail("an outcome ${MODEL} does not allow was reached")
endif()
