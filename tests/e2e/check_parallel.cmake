# -j N gives the same exploration as -j 1 (PartitionedDpor.h,
# PartitionedSampling.h): ctrl attach runs twice on a program, with -j 1 and
# with -j JOBS, and the two JSON reports, exit statuses and stdout must be
# the same by the rules of same_exploration.cmake.
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
include("${CMAKE_CURRENT_LIST_DIR}/same_exploration.cmake")

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
  file(READ "${WORKDIR}/j${j}.json" json_j${j})
  e2e_log("-- ${WORKDIR}/j${j}.json:\n${json_j${j}}\n")
  set(j${j}_rc "${run${j}_rc}")
  same_exploration_normalise(j${j} run${j}_out "${WORKDIR}/traces-j${j}")
endforeach()

file(READ "${top}/run-j${JOBS}/j${JOBS}.json" partitioned_json)
string(JSON partitioned_mode ERROR_VARIABLE no_partitioned_mode GET "${partitioned_json}" parallel mode)
if(partitioned_mode STREQUAL "dpor-partition")
  foreach(j 1 ${JOBS})
    same_exploration_partitioned(j${j})
  endforeach()
endif()
same_exploration_compare(j1 j${JOBS} "-j 1" "-j ${JOBS}")

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
