# The stepping session on the recorded deadlock of samples/deadlock_lock_order
# (issue 10's first acceptance point): `threads` shows who waits on whom at
# the deadlock, `goto` the step before it, `step` another thread than the
# recorded one, `continue` ends clean, `save` writes a trace whose replay
# exits 0 while the original trace still exits 1.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<deadlock_lock_order>
#         -P check_deadlock.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_common.cmake")

e2e_fresh_workdir()
e2e_exec(run "${CTRL}" attach --json "${WORKDIR}/report.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${run_rc}" 1 "ctrl attach")
e2e_check_report(report "${WORKDIR}/report.json" "ctrl attach")
if(NOT report_kind STREQUAL "deadlock")
  e2e_fail("ctrl attach found a ${report_kind}, expected a deadlock")
endif()

# 1. Along the recording to the deadlock: who waits on whom.
file(WRITE "${WORKDIR}/first.batch" "threads\ncontinue\nthreads\nschedule\nquit\n")
e2e_exec(first "${CTRL}" replay --batch "${WORKDIR}/first.batch" "${report_trace}")
e2e_expect_exit("${first_rc}" 0 "the first batch")
if(NOT first_out MATCHES "bug at step ([0-9]+): deadlock: no thread can proceed")
  e2e_fail("continue along the recording did not stop at the deadlock")
endif()
set(steps "${CMAKE_MATCH_1}")
foreach(who "T1 \\(tid [0-9]+\\): blocked in mutex_lock b \\(waits for T2\\)"
            "T2 \\(tid [0-9]+\\): blocked in mutex_lock a \\(waits for T1\\)"
            "T0 \\(tid [0-9]+\\): blocked in pthread_join T1")
  if(NOT first_out MATCHES "${who}")
    e2e_fail("threads at the deadlock does not show '${who}'")
  endif()
endforeach()

# 2. The step before the deadlock, another thread, to the end.
math(EXPR before "${steps} - 1")
file(WRITE "${WORKDIR}/second.batch" "goto ${before}\nthreads\nquit\n")
e2e_exec(second "${CTRL}" replay --batch "${WORKDIR}/second.batch" "${report_trace}")
e2e_expect_exit("${second_rc}" 0 "the second batch")
if(NOT second_out MATCHES "\\* T([0-9]+) \\(tid [0-9]+\\): enabled")
  e2e_fail("threads after goto ${before} marks no enabled thread as the recording's next")
endif()
set(recorded "${CMAKE_MATCH_1}")
string(REGEX MATCHALL "\n  T([0-9]+) \\(tid [0-9]+\\): enabled" others "${second_out}")
if(NOT others)
  e2e_fail("at step ${before} no thread but the recorded one is enabled")
endif()
list(GET others 0 other)
string(REGEX REPLACE "\n  T([0-9]+) .*" "\\1" other "${other}")
file(WRITE "${WORKDIR}/third.batch"
  "goto ${before}\nstep T${other}\ncontinue\nsave ${WORKDIR}/fixed.ctrltrace\nquit\n")
e2e_exec(third "${CTRL}" replay --batch "${WORKDIR}/third.batch" "${report_trace}")
e2e_expect_exit("${third_rc}" 0 "the third batch")
if(NOT third_out MATCHES "left the recorded schedule at step ${steps}: it runs T${recorded} there")
  e2e_fail("stepping T${other} at step ${steps} did not leave the recording")
endif()
if(NOT third_out MATCHES "end at step [0-9]+: the program exited with status 0")
  e2e_fail("continue after stepping T${other} did not end clean")
endif()
if(NOT EXISTS "${WORKDIR}/fixed.ctrltrace")
  e2e_fail("save wrote no trace")
endif()

# 3. The saved schedule replays clean; the original still deadlocks.
e2e_exec(fixed "${CTRL}" replay "${WORKDIR}/fixed.ctrltrace")
e2e_expect_exit("${fixed_rc}" 0 "ctrl replay of the saved schedule")
if(NOT fixed_out MATCHES "no bug")
  e2e_fail("the saved schedule's replay does not say it ended without a bug")
endif()
e2e_exec(original "${CTRL}" replay "${report_trace}")
e2e_expect_exit("${original_rc}" 1 "ctrl replay of the original trace")
message(STATUS "ok: deadlock shown, another thread stepped, the new schedule replays clean")
