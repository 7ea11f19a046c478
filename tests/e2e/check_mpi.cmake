# ctrl attach --mpi under mpirun gives the exploration of -j 1 (issue 28):
# ctrl runs once with -j 1 and once as RANKS ranks of
#   mpirun --oversubscribe -np RANKS ctrl attach --mpi ...
# and the two JSON reports must be equal apart from the times, the
# checkpoint restores and the "parallel" section (a bug's trace is compared
# by file name), as must the exit statuses and stdout (times, thread ids and
# backtrace frames removed). The MPI run's report must give each rank's
# sessions, executions and idle fraction; EXPECT_REMOTE: ranks other than 0
# ran executions. A bug's trace written under MPI must replay with plain
# ctrl replay (exit 1).
#
#   cmake -DCTRL=<ctrl> -DMPIRUN=<mpirun> -DWORKDIR=<fresh directory> -DPROGRAM=<program>
#         [-DPROGRAM_ARGS="a b"] [-DCTRL_ARGS="--strategy random"] [-DRANKS=4]
#         [-DEXPECT_REMOTE=ON] [-DEXPECT_SAME_PROBES=ON] -P check_mpi.cmake
# EXPECT_SAME_PROBES: the default strategy's probes were as many under MPI
# as with -j 1 (true when no execution blocks), and there were some.

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/same_exploration.cmake")

if(NOT DEFINED RANKS)
  set(RANKS 4)
endif()
separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
separate_arguments(program_args UNIX_COMMAND "${PROGRAM_ARGS}")
# mpirun refuses root without this (CI runs as root).
set(mpirun "${MPIRUN}" --oversubscribe -np ${RANKS})
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(uid STREQUAL "0")
  list(APPEND mpirun --allow-run-as-root)
endif()

e2e_fresh_workdir()
set(top "${WORKDIR}")
foreach(run j1 mpi)
  set(WORKDIR "${top}/run-${run}")
  file(MAKE_DIRECTORY "${WORKDIR}")
  if(run STREQUAL "j1")
    set(launch "${CTRL}" attach -j 1)
  else()
    set(launch ${mpirun} "${CTRL}" attach --mpi)
  endif()
  e2e_exec(${run} ${launch} ${ctrl_args} --json "${WORKDIR}/${run}.json" --trace-dir "${WORKDIR}/traces"
    "${PROGRAM}" ${program_args})
  e2e_expect_exit("${${run}_rc}" "0|1" "ctrl attach (${run})")
  file(READ "${WORKDIR}/${run}.json" json_${run})
  string(JSON probes_${run} GET "${json_${run}}" executions probes total)
  same_exploration_normalise(${run} ${run}_out "${WORKDIR}/traces")
endforeach()

# --strategy dpor: the ranks' sessions explore work items of rank 0's
# partition (PartitionedDpor.h), so what -j N may change may change here too.
file(READ "${top}/run-mpi/mpi.json" mpi_full)
string(JSON mpi_mode ERROR_VARIABLE no_mpi_mode GET "${mpi_full}" parallel mode)
if(mpi_mode STREQUAL "dpor-partition")
  foreach(run j1 mpi)
    same_exploration_partitioned(${run})
  endforeach()
endif()
same_exploration_compare(j1 mpi "-j 1" "--mpi (${RANKS} ranks)")
if(EXPECT_SAME_PROBES AND NOT probes_j1 EQUAL probes_mpi)
  e2e_fail("${probes_j1} probes with -j 1 but ${probes_mpi} with --mpi (${RANKS} ranks)")
endif()
if(EXPECT_SAME_PROBES AND probes_j1 EQUAL 0)
  e2e_fail("no probes ran: the test checks nothing")
endif()

file(READ "${top}/run-mpi/mpi.json" full)
# The first execution ran on rank 0 alone; when it ended the exploration
# (a bug in it, or one execution allowed), no partition was made and the
# ranks had nothing to do: no parallel section to check.
string(JSON mode GET "${full}" parallel mode)
if(mode STREQUAL "" OR mode STREQUAL "null" OR mode MATCHES "NOTFOUND")
  if(EXPECT_REMOTE)
    e2e_fail("no partition was made: the ranks took no part")
  endif()
  message(STATUS "same report with -j 1 and --mpi on ${RANKS} ranks (ended at the first execution, on rank 0)")
  return()
endif()
string(JSON nranks ERROR_VARIABLE no_ranks LENGTH "${full}" parallel ranks)
if(NOT nranks EQUAL RANKS)
  e2e_fail("parallel.ranks has '${nranks}' ranks, expected ${RANKS} ${no_ranks}")
endif()
set(shown "")
set(remote 0)
math(EXPR last "${RANKS} - 1")
foreach(r RANGE ${last})
  string(JSON f GET "${full}" parallel ranks ${r} idle_fraction)
  string(JSON n GET "${full}" parallel ranks ${r} executions)
  string(JSON s GET "${full}" parallel ranks ${r} steals)
  if(f LESS 0 OR f GREATER 1)
    e2e_fail("rank ${r}'s idle fraction is ${f}")
  endif()
  if(r GREATER 0)
    math(EXPR remote "${remote} + ${n}")
  endif()
  string(APPEND shown " rank ${r}: ${n} executions (idle ${f}, ${s} steals);")
endforeach()
if(EXPECT_REMOTE AND remote EQUAL 0)
  e2e_fail("ranks 1..${last} ran no execution:${shown}")
endif()
if(mpi_rc STREQUAL "1")
  set(WORKDIR "${top}/run-mpi")
  e2e_exec(replay "${CTRL}" replay "${trace_mpi_0}")
  e2e_expect_exit("${replay_rc}" 1 "ctrl replay of the trace written under --mpi")
endif()
message(STATUS "same report with -j 1 and --mpi on ${RANKS} ranks;${shown}")
