# Live checkpoints in the stepping session, on samples/long_prefix_race
# (thousands of visible stores before its racy part): `checkpoint`,
# `restart`, automatic checkpoints on a long `goto`, and the same answers,
# step for step, with --no-checkpoints (where every move back re-runs the
# execution from its start).
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<long_prefix_race>
#         -P check_checkpoints.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_common.cmake")

e2e_fresh_workdir()
# A whole execution's schedule, stepped to its end and saved.
file(WRITE "${WORKDIR}/record.batch" "continue\nsave ${WORKDIR}/run.ctrltrace\nquit\n")
e2e_exec(record "${CTRL}" attach --batch "${WORKDIR}/record.batch" "${PROGRAM}")
e2e_expect_exit("${record_rc}" 0 "recording the schedule")
if(NOT record_out MATCHES "end at step ([0-9]+): the program exited with status 0")
  e2e_fail("the stepped execution did not end clean")
endif()
set(steps "${CMAKE_MATCH_1}")
if(steps LESS 5000)
  e2e_fail("the execution has ${steps} steps; the test needs more than 5000")
endif()
math(EXPR far "${steps} - 100")
math(EXPR mid "${steps} / 2")

# 1. Moves and answers: the same with and without checkpoints.
file(WRITE "${WORKDIR}/moves.batch"
  "goto ${far}\nprint table[1000]\nback 3000\nprint table[${mid}]\ngoto ${mid}\nthreads\nstep T1\nstep T2\n"
  "threads\nback 2\nthreads\nnext 3\nprint total\nback 5000\nprint table[1000]\nquit\n")
e2e_exec(with "${CTRL}" replay --batch "${WORKDIR}/moves.batch" "${WORKDIR}/run.ctrltrace")
e2e_expect_exit("${with_rc}" 0 "moving with checkpoints")
e2e_exec(without "${CTRL}" replay --no-checkpoints --batch "${WORKDIR}/moves.batch" "${WORKDIR}/run.ctrltrace")
e2e_expect_exit("${without_rc}" 0 "moving without checkpoints")
string(REGEX REPLACE "tid [0-9]+" "tid N" with_norm "${with_out}")
string(REGEX REPLACE "tid [0-9]+" "tid N" without_norm "${without_out}")
if(NOT with_norm STREQUAL without_norm)
  file(WRITE "${WORKDIR}/with.txt" "${with_norm}")
  file(WRITE "${WORKDIR}/without.txt" "${without_norm}")
  e2e_fail("the answers differ with and without checkpoints (see with.txt and without.txt)")
endif()
if(NOT with_out MATCHES "table\\[1000\\] = 1000")
  e2e_fail("print table[1000] after the table was filled did not say 1000")
endif()

# 2. checkpoint and restart: the state at the checkpoint comes back, and the
# recording goes on from there; the long goto left automatic checkpoints.
file(WRITE "${WORKDIR}/restart.batch"
  "goto ${mid}\nthreads\ncheckpoint\nstep T1\nstep T2\nrestart 1\nthreads\ngoto ${far}\ninfo checkpoints\nquit\n")
e2e_exec(restart "${CTRL}" replay --batch "${WORKDIR}/restart.batch" "${WORKDIR}/run.ctrltrace")
e2e_expect_exit("${restart_rc}" 0 "checkpoint and restart")
string(REGEX REPLACE "tid [0-9]+" "tid N" restart_norm "${restart_out}")
string(REGEX MATCHALL "\\(ctrl\\) threads\n[^(]*" states "${restart_norm}")
list(LENGTH states n)
if(NOT n EQUAL 2)
  e2e_fail("expected two threads listings, got ${n}")
endif()
list(GET states 0 before)
list(GET states 1 after)
if(NOT before STREQUAL after)
  e2e_fail("restart 1 did not bring back the threads as they were at the checkpoint:\n${before}\nvs\n${after}")
endif()
foreach(expected "checkpoint 1 at step ${mid}\n" "restart 1\nat step ${mid} of the recording; next: T0 "
                 "goto ${far}\nat step ${far} of the recording" "\n1   step ${mid}\n" "\n-   step [0-9]+\n")
  if(NOT restart_out MATCHES "${expected}")
    e2e_fail("expected /${expected}/ in the restart batch's output")
  endif()
endforeach()
message(STATUS "ok: the same answers with and without checkpoints; checkpoint, restart, automatic ones")
