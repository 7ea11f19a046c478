# The prompt's other commands and its bad input (issue 10): an unknown
# command, a thread that cannot run, a step past the end and a bad location
# each get one "error:" line and the session goes on (batch exit status 2 at
# the end); `explore` from a step runs DPOR from there; under --model tso,
# `buffers` shows the stores waiting and a flush actor can be stepped.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<deadlock_lock_order>
#         -DLITMUS=<litmus_sb> -P check_commands.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_common.cmake")

e2e_fresh_workdir()
file(WRITE "${WORKDIR}/bad.batch"
  "frobnicate\nstep T7\ngoto 999\nback 3\nbreak nowhere.c:3\nstep\nstep T9 2\nthreads\nquit\n")
e2e_exec(bad "${CTRL}" attach --batch "${WORKDIR}/bad.batch" "${PROGRAM}")
e2e_expect_exit("${bad_rc}" 2 "a batch with bad commands")
foreach(expected "frobnicate\nerror: unknown command \"frobnicate\"" "step T7\nerror: T7 cannot perform step 1"
                 "goto 999\nerror: step 999 is past the known schedule" "back 3\nerror: cannot go back 3 steps"
                 "break nowhere.c:3\nerror: break: no code at nowhere.c:3"
                 "\\(ctrl\\) step\n    1  T0   pthread_create -> T1" "step T9 2\nerror: T9 cannot perform step 2"
                 "T1 \\(tid [0-9]+\\): enabled: thread_start")
  if(NOT bad_out MATCHES "${expected}")
    e2e_fail("expected /${expected}/")
  endif()
endforeach()

# explore from step 4 (T1 holds a): DPOR from there finds the deadlock and
# says how many executions it ran; the session is still at step 4.
file(WRITE "${WORKDIR}/explore.batch" "next 4\nexplore --trace-dir ${WORKDIR}/traces\nthreads\nquit\n")
e2e_exec(explore "${CTRL}" attach --batch "${WORKDIR}/explore.batch" "${PROGRAM}")
e2e_expect_exit("${explore_rc}" 0 "explore")
foreach(expected "exploring from step 4 with strategy dpor" "== bug 1: deadlock"
                 "[0-9]+ executions \\([0-9]+ complete, [0-9]+ blocked\\), 1 bug" "\nat step 4; next: ")
  if(NOT explore_out MATCHES "${expected}")
    e2e_fail("expected /${expected}/ after explore")
  endif()
endforeach()
file(GLOB traces "${WORKDIR}/traces/*.ctrltrace")
list(LENGTH traces n)
if(NOT n EQUAL 1)
  e2e_fail("explore saved ${n} traces, expected the deadlock's")
endif()
e2e_exec(replay "${CTRL}" replay ${traces})
e2e_expect_exit("${replay_rc}" 1 "replay of the trace explore saved")

# tso: the store buffers, and a flush stepped by hand.
file(WRITE "${WORKDIR}/tso.batch" "next 8\nbuffers\nthreads\nstep F2\nbuffers\nquit\n")
e2e_exec(tso "${CTRL}" attach --model tso --batch "${WORKDIR}/tso.batch" "${LITMUS}")
e2e_expect_exit("${tso_rc}" 0 "stepping under tso")
foreach(expected "T1: x <- 1 \\(8 bytes, step 4, F1 may flush\\)" "T2: y <- 1 \\(8 bytes, step 8, F2 may flush\\)"
                 "flushes that may run: F1 F2" "step F2\n    9  T2   store buffer flush: y \\(8 bytes\\) <- 1"
                 "buffers\n  T1: x <- 1[^\n]*\n\\(ctrl\\) quit")
  if(NOT tso_out MATCHES "${expected}")
    e2e_fail("expected /${expected}/ under tso")
  endif()
endforeach()
message(STATUS "ok: bad input answered and survived, explore from a step, tso buffers")
