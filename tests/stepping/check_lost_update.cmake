# The stepping session on the lost update of samples/lost_update_atomic
# (issue 10's second acceptance point): a breakpoint at the racy line stops
# before a thread's store, `print` shows the counter in each thread's view,
# `back 3` and `goto` forward again show the same values.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<lost_update_atomic>
#         -P check_lost_update.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_common.cmake")

e2e_fresh_workdir()
e2e_exec(run "${CTRL}" attach --json "${WORKDIR}/report.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${run_rc}" 1 "ctrl attach")
e2e_check_report(report "${WORKDIR}/report.json" "ctrl attach")

# The store `atomic_store(&x, v + 1)` is on line 17 of the sample.
file(WRITE "${WORKDIR}/first.batch" "break lost_update_atomic.c:17\ncontinue\nquit\n")
e2e_exec(first "${CTRL}" replay --batch "${WORKDIR}/first.batch" "${report_trace}")
e2e_expect_exit("${first_rc}" 0 "the first batch")
if(NOT first_out MATCHES "Breakpoint 1, T([12]) is about to perform step ([0-9]+): atomic_store x at [^\n]*lost_update_atomic.c:17")
  e2e_fail("continue did not stop at the breakpoint before a store on line 17")
endif()
math(EXPR at "${CMAKE_MATCH_2} - 1")
math(EXPR earlier "${at} - 3")

file(WRITE "${WORKDIR}/second.batch"
  "break lost_update_atomic.c:17\ncontinue\nprint T1 x\nprint T2 x\nback 3\nprint T1 x\ngoto ${at}\nprint T1 x\nprint T2 x\n"
  "continue\nprint T1 x\nquit\n")
e2e_exec(second "${CTRL}" replay --batch "${WORKDIR}/second.batch" "${report_trace}")
e2e_expect_exit("${second_rc}" 0 "the second batch")
string(REGEX MATCHALL "\\(ctrl\\) [^\n]*\n[^\n(]*" answers "${second_out}")
set(values "")
foreach(a IN LISTS answers)
  if(a MATCHES "^\\(ctrl\\) print T([12]) x\nx = ([0-9]+)$")
    list(APPEND values "T${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
  elseif(a MATCHES "^\\(ctrl\\) print")
    e2e_fail("print answered something else than 'x = N': ${a}")
  endif()
endforeach()
# At the breakpoint and after going back and forth: the same x in both
# threads' views; before, no store has happened; after the first thread's
# store, the second store is the lost one.
if(NOT values STREQUAL "T1=0;T2=0;T1=0;T1=0;T2=0;T1=1")
  e2e_fail("print gave ${values}, expected T1=0;T2=0;T1=0;T1=0;T2=0;T1=1")
endif()
if(NOT second_out MATCHES "goto ${at}\nat step ${at} of the recording")
  e2e_fail("goto ${at} did not return to step ${at} on the recording")
endif()
if(NOT second_out MATCHES "back 3\nat step ${earlier} of the recording")
  e2e_fail("back 3 did not go to step ${earlier}")
endif()
message(STATUS "ok: breakpoint at the racy line, the same values back and forth")
