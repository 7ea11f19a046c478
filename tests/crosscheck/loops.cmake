# Optimal-DPOR against source-DPOR on small programs with spin loops and
# condition variables (loops/*.c), which the brute force of gen_and_count
# cannot count: a thread re-reading a location nothing wrote since is not run
# (the agent's await) unless only such threads are left (its probe), and a
# wake-up follows the signal that woke it. On each program `ctrl attach
# --dpor optimal --keep-going` must end without error, exhaustively, with
# as many complete executions and the same number of distinct bugs as the
# default exploration (source-DPOR, the acceptance check). Blocked
# executions are allowed here: a reversal that only a spin probe could run
# makes optimal mode try every thread there, as source-DPOR does.
#
#   cmake -DCTRL=<ctrl> -DCC=<gcc> -DLOOPS=<dir of .c files> -DWORKDIR=<dir>
#         -P loops.cmake

cmake_minimum_required(VERSION 3.20)

foreach(var CTRL CC LOOPS WORKDIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "loops.cmake: -D${var}=... is required")
  endif()
endforeach()

file(GLOB programs "${LOOPS}/*.c")
list(SORT programs)
if(NOT programs)
  message(FATAL_ERROR "loops.cmake: no programs in ${LOOPS}")
endif()
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")

set(failures "")
foreach(src IN LISTS programs)
  get_filename_component(name "${src}" NAME_WE)
  set(dir "${WORKDIR}/${name}")
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${CC}" -O2 -pthread -o "${dir}/prog" "${src}"
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(APPEND failures "${name}: does not compile: ${err}")
    continue()
  endif()
  set(summary "")
  foreach(mode source optimal)
    # --races off: as in crosscheck.cmake (__atomic builtins on plain ints).
    execute_process(COMMAND "${CTRL}" attach --strategy dpor --dpor ${mode} --keep-going --races off
        --json "${dir}/${mode}.json" --trace-dir "${dir}/traces" "${dir}/prog"
      WORKING_DIRECTORY "${dir}"
      RESULT_VARIABLE run_rc OUTPUT_VARIABLE run_out ERROR_VARIABLE run_err
      TIMEOUT 120)
    if(NOT run_rc MATCHES "^[01]$" OR NOT EXISTS "${dir}/${mode}.json")
      list(APPEND failures "${name}: --dpor ${mode}: exit status ${run_rc}: ${run_err}")
      break()
    endif()
    file(READ "${dir}/${mode}.json" json)
    string(JSON complete_${mode} GET "${json}" executions complete)
    string(JSON blocked_${mode} GET "${json}" executions blocked)
    string(JSON exhaustive_${mode} GET "${json}" exhaustive)
    string(JSON bugs_${mode} LENGTH "${json}" bugs)
    if(NOT exhaustive_${mode})
      list(APPEND failures "${name}: --dpor ${mode}: exploration not exhaustive")
      break()
    endif()
    string(APPEND summary " ${mode}: ${complete_${mode}} complete, ${blocked_${mode}} blocked, ${bugs_${mode}} bugs;")
  endforeach()
  if(NOT DEFINED bugs_optimal)
    continue()
  endif()
  if(NOT complete_source EQUAL complete_optimal OR NOT bugs_source EQUAL bugs_optimal)
    list(APPEND failures "${name}: the modes disagree:${summary}")
  else()
    message("${name}:${summary}")
    file(REMOVE_RECURSE "${dir}")
  endif()
  unset(bugs_optimal)
endforeach()

if(failures)
  list(JOIN failures "\n  " lines)
  message(FATAL_ERROR "loops: failures:\n  ${lines}")
endif()
