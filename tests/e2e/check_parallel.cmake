# -j N gives the same exploration as -j 1 (PartitionedDpor.h,
# PartitionedSampling.h): ctrl attach
# runs twice on a program, with -j 1 and with -j JOBS, and the two JSON
# reports must be equal apart from the times, the checkpoint restores and the
# "parallel" statistics (a bug's trace is compared by file name: each run has
# its own trace directory); so must the exit statuses and stdout (times,
# thread ids and backtrace frames removed).
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<program>
#         [-DPROGRAM_ARGS="a b"] [-DCTRL_ARGS="--strategy random"] [-DJOBS=2]
#         [-DEXPECT_TAKEN=ON] [-DEXPECT_MODE=seed-ranges] -P check_parallel.cmake
#
# EXPECT_TAKEN: the -j JOBS run took at least one result run ahead (the
# comparison alone would also pass if speculation never happened).
# EXPECT_MODE: the -j JOBS run shared the work that way (parallel.mode); for
# seed-ranges, the report gives each of the JOBS sessions' executions and
# idle fraction (from 0 to 1).

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

if(NOT DEFINED PROGRAM OR PROGRAM STREQUAL "")
  message(FATAL_ERROR "check_parallel.cmake: -DPROGRAM=... is required")
endif()
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()
separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
separate_arguments(program_args UNIX_COMMAND "${PROGRAM_ARGS}")

e2e_fresh_workdir()

set(top "${WORKDIR}")
foreach(j 1 ${JOBS})
  # Each run in a directory of its own: a program may leave files behind.
  set(WORKDIR "${top}/run-j${j}")
  file(MAKE_DIRECTORY "${WORKDIR}")
  e2e_exec(run${j} "${CTRL}" attach -j ${j} ${ctrl_args} --json "${WORKDIR}/j${j}.json"
    --trace-dir "${WORKDIR}/traces-j${j}" "${PROGRAM}" ${program_args})
  e2e_expect_exit("${run${j}_rc}" "0|1" "ctrl attach -j ${j}")
  file(READ "${WORKDIR}/j${j}.json" json${j})
  e2e_log("-- ${WORKDIR}/j${j}.json:\n${json${j}}\n")
  # What may differ: times, restores (fewer executions run on the explorer's
  # session) and so the steps and hand-offs run (a restore skips the steps
  # before its checkpoint), the speculation itself, and where traces go.
  string(JSON restores${j} GET "${json${j}}" checkpoint_restores)
  foreach(key elapsed_seconds checkpoint_restores parallel)
    string(JSON json${j} REMOVE "${json${j}}" ${key})
  endforeach()
  string(JSON nbugs LENGTH "${json${j}}" bugs)
  if(nbugs GREATER 0)
    math(EXPR last "${nbugs} - 1")
    foreach(b RANGE ${last})
      string(JSON trace GET "${json${j}}" bugs ${b} trace)
      get_filename_component(trace "${trace}" NAME)
      string(JSON json${j} SET "${json${j}}" bugs ${b} trace "\"${trace}\"")
      # The stacks at the bug (issue 25: per-bug JSON) hold kernel thread ids
      # and the frames of threads caught anywhere: as the text's, not compared.
      string(JSON json${j} REMOVE "${json${j}}" bugs ${b} stacks)
    endforeach()
  endif()
  # Times, kernel thread ids and the frames of the threads at a bug (where
  # a thread that is not stopped at a visible operation is caught, as in the
  # middle of abort()) differ from run to run whatever -j says.
  string(REGEX REPLACE "[0-9]+\\.[0-9]+ s" "T s" out${j} "${run${j}_out}")
  string(REGEX REPLACE "tid [0-9]+" "tid N" out${j} "${out${j}}")
  string(REGEX REPLACE "\n +#[0-9]+ [^\n]*" "" out${j} "${out${j}}")
    string(REGEX REPLACE "the default ran [0-9]+ such" "the default ran N such" out${j} "${out${j}}")
  string(REPLACE "${WORKDIR}/traces-j${j}" "TRACES" out${j} "${out${j}}")
endforeach()

# Partitioned DPOR (PartitionedDpor.h): the complete executions are one per
# class whatever -j says, but how many end blocked by their sleep sets, and
# so the executions and steps in all, and which execution of a class meets a
# bug first (its number, trace, steps, preemptions and how often its kind
# recurs), depend on the order races are found in, and so does which
# execution the explorer's session ran last (what the files are left as
# after it). The default strategy's probes follow the search's executions in
# all, blocked ones included: their counts may differ too. Compared there:
# the complete executions, the verdict and each bug's kind and message.
file(READ "${top}/run-j${JOBS}/j${JOBS}.json" partitioned_json)
string(JSON partitioned_mode ERROR_VARIABLE no_partitioned_mode GET "${partitioned_json}" parallel mode)
if(partitioned_mode STREQUAL "dpor-partition")
  foreach(j 1 ${JOBS})
    foreach(key blocked total)
      string(JSON json${j} REMOVE "${json${j}}" executions ${key})
    endforeach()
    string(JSON json${j} REMOVE "${json${j}}" steps)
    string(JSON json${j} REMOVE "${json${j}}" handoffs)
    string(JSON json${j} REMOVE "${json${j}}" files)
    string(JSON json${j} REMOVE "${json${j}}" executions probes)
    string(JSON nbugs LENGTH "${json${j}}" bugs)
    set(kinds "")
    if(nbugs GREATER 0)
      math(EXPR last "${nbugs} - 1")
      foreach(b RANGE ${last})
        string(JSON kind GET "${json${j}}" bugs ${b} kind)
        string(JSON message GET "${json${j}}" bugs ${b} message)
        list(APPEND kinds "${kind}: ${message}")
      endforeach()
      list(SORT kinds)
    endif()
    string(JSON json${j} REMOVE "${json${j}}" bugs)
    set(bugs${j} "${kinds}")
    # Without --keep-going the first bug in finishing order ends the run:
    # how many complete executions came before it is not -j 1's either
    # (issue 28, item 2, not built: docs/PERFORMANCE.md).
    string(JSON exhaustive${j} GET "${json${j}}" exhaustive)
    if(nbugs GREATER 0 AND NOT exhaustive${j})
      string(JSON json${j} REMOVE "${json${j}}" executions complete)
      string(JSON json${j} REMOVE "${json${j}}" races checked_executions)
    endif()
    # The summary line's blocked count; the rest of stdout as with -j 1.
    string(REGEX REPLACE "[0-9]+ executions \\(([0-9]+) complete, [0-9]+ blocked" "N executions (\\1 complete, N blocked"
      out${j} "${out${j}}")
    string(REGEX REPLACE "exec[0-9]+" "execN" out${j} "${out${j}}")
    string(REGEX REPLACE "; [0-9]+ probes? by pos and pct(, [0-9]+ of them cut)?" "" out${j} "${out${j}}")
  endforeach()
  if(NOT bugs1 STREQUAL bugs${JOBS})
    e2e_fail("the bugs differ:\n-j 1: ${bugs1}\n-j ${JOBS}: ${bugs${JOBS}}")
  endif()
  # A bug's text (its schedule, its stacks) is that of another execution of
  # the class: only the report's counts and bugs are compared.
  if(nbugs GREATER 0)
    set(out1 "")
    set(out${JOBS} "")
  endif()
endif()
if(NOT restores1 EQUAL 0 OR NOT restores${JOBS} EQUAL 0)
  foreach(j 1 ${JOBS})
    string(JSON json${j} REMOVE "${json${j}}" steps)
    string(JSON json${j} REMOVE "${json${j}}" handoffs)
  endforeach()
endif()
if(NOT run1_rc STREQUAL run${JOBS}_rc)
  e2e_fail("exit status ${run1_rc} with -j 1 but ${run${JOBS}_rc} with -j ${JOBS}")
endif()
string(JSON same EQUAL "${json1}" "${json${JOBS}}")
if(NOT same)
  e2e_fail("the JSON reports differ (times and speculation removed):\n-j 1: ${json1}\n-j ${JOBS}: ${json${JOBS}}")
endif()
if(NOT out1 STREQUAL out${JOBS})
  e2e_fail("stdout differs (times removed):\n-j 1:\n${out1}\n-j ${JOBS}:\n${out${JOBS}}")
endif()

file(READ "${WORKDIR}/j${JOBS}.json" full)  # WORKDIR: the -j JOBS run's
string(JSON jobs GET "${full}" parallel jobs)
string(JSON taken GET "${full}" parallel taken)
string(JSON stopped GET "${full}" parallel stopped)
if(NOT jobs EQUAL JOBS)
  e2e_fail("parallel.jobs is ${jobs}, expected ${JOBS}")
endif()
if(EXPECT_TAKEN AND taken LESS 1)
  e2e_fail("-j ${JOBS} took no result run ahead (speculation stopped: ${stopped})")
endif()
if(DEFINED EXPECT_MODE)
  string(JSON mode ERROR_VARIABLE no_mode GET "${full}" parallel mode)
  if(NOT mode STREQUAL EXPECT_MODE)
    e2e_fail("parallel.mode is '${mode}', expected ${EXPECT_MODE}")
  endif()
  if(EXPECT_MODE STREQUAL "seed-ranges" OR EXPECT_MODE STREQUAL "dpor-partition")
    string(JSON nworkers LENGTH "${full}" parallel workers)
    if(NOT nworkers EQUAL JOBS)
      e2e_fail("parallel.workers has ${nworkers} sessions, expected ${JOBS}")
    endif()
    set(idle "")
    math(EXPR last "${JOBS} - 1")
    foreach(w RANGE ${last})
      string(JSON f GET "${full}" parallel workers ${w} idle_fraction)
      string(JSON n GET "${full}" parallel workers ${w} executions)
      if(f LESS 0 OR f GREATER 1)
        e2e_fail("session ${w}'s idle fraction is ${f}")
      endif()
      string(APPEND idle " ${n} executions (idle ${f})")
    endforeach()
    message(STATUS "sessions:${idle}")
  endif()
endif()
message(STATUS "same report with -j 1 and -j ${JOBS}; ${taken} results taken from executions run ahead")
