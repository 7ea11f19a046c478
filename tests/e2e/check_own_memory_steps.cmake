# Own memory (agent/OwnMemory.h) on a program whose threads work mostly on
# their own stacks: DPOR under --visible all and under the default (which
# explores under --visible shared) must run the same number of executions,
# each exhaustively, while the default's executions take at least FACTOR
# times fewer steps, with no restart (no thread touches another's stack).
# Without live checkpoints, so that every execution's steps are counted.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<program>
#         -DFACTOR=N -P check_own_memory_steps.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

foreach(var PROGRAM FACTOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_own_memory_steps.cmake: -D${var}=... is required")
  endif()
endforeach()

e2e_fresh_workdir()
file(MAKE_DIRECTORY "${WORKDIR}/traces")

foreach(visible all default)
  set(args)
  if(visible STREQUAL "all")
    set(args --visible all)
  endif()
  set(what "ctrl attach ${args}")
  e2e_exec(run "${CTRL}" attach ${args} --no-checkpoints --json "${WORKDIR}/${visible}.json" --trace-dir "${WORKDIR}/traces"
    "${PROGRAM}")
  e2e_expect_exit("${run_rc}" 0 "${what}")
  e2e_check_report(${visible} "${WORKDIR}/${visible}.json" "${what}")
  string(JSON total_${visible} GET "${${visible}_json}" executions total)
  string(JSON steps_${visible} GET "${${visible}_json}" steps)
  string(JSON exhaustive_${visible} GET "${${visible}_json}" exhaustive)
  string(JSON used_${visible} GET "${${visible}_json}" visible used)
  if(NOT exhaustive_${visible})
    e2e_fail("${what}: not exhaustive")
  endif()
endforeach()
if(NOT used_default STREQUAL "shared")
  e2e_fail("the default explored under --visible ${used_default}, expected shared")
endif()
string(JSON restarts GET "${default_json}" visible own_memory restarts)
if(NOT restarts EQUAL 0)
  e2e_fail("the default explored again ${restarts} times: no thread touches another's stack")
endif()
if(NOT total_all EQUAL total_default)
  e2e_fail("${total_all} executions under --visible all, ${total_default} under the default: expected the same")
endif()
math(EXPR scaled "${steps_default} * ${FACTOR}")
if(scaled GREATER steps_all)
  e2e_fail("${steps_all} steps under --visible all, ${steps_default} under the default (${total_all} executions): "
           "expected at least ${FACTOR} times fewer")
endif()
e2e_log("steps: ${steps_all} under --visible all, ${steps_default} under the default, ${total_all} executions")
