# The prompt's side of issue 25, item 6, on samples/pool_stop_unlocked (T0
# main, T1 worker): `step N` counts N steps as gdb's does (a thread is
# named T1); `watch EXPR` takes what `print` takes (p->stop, p a local of
# main) and stops after the write, naming the writer and its line, not at
# T1's reads; `break *0xADDR`, where line 49's store starts, stops there; a
# user error (`save` into a missing directory) is one error line and the
# session goes on (batch exit 2 at the end), never an internal error.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<pool_stop_unlocked> -P check_prompt_path.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_common.cmake")

e2e_fresh_workdir()
file(WRITE "${WORKDIR}/watch.batch"
  "save ${WORKDIR}/missing/dir/x\nstep 2\nwatch p->stop\ncontinue\nthreads\nsave ${WORKDIR}/saved\nquit\n")
e2e_exec(watch "${CTRL}" attach --batch "${WORKDIR}/watch.batch" "${PROGRAM}")
e2e_expect_exit("${watch_rc}" 2 "a batch with a save that fails")
foreach(expected "save [^\n]*missing/dir/x\nerror: save: cannot write trace file"
                 "step 2\n    1  T0   pthread_create -> T1[^\n]*\n    2  T0   pthread_mutex_lock"
                 "watch p->stop\nWatchpoint 1: p->stop \\(4 bytes at 0x[0-9a-f]+\\)"
                 "Watchpoint 1: T0 wrote [^ ]+ \\(4 bytes at 0x[0-9a-f]+\\) at pool_stop at pool_stop_unlocked\\.c:49"
                 "saved [0-9]+ steps to ")
  if(NOT watch_out MATCHES "${expected}")
    e2e_fail("expected /${expected}/")
  endif()
endforeach()
if(watch_out MATCHES "Watchpoint 1: T1" OR watch_out MATCHES "internal error")
  e2e_fail("the watchpoint stopped at T1's read, or the session ended")
endif()

# break *ADDRESS: main's address (x/i) plus the store's offset in main,
# as the bug report names it ("inlined in main+0x6b").
e2e_exec(report "${CTRL}" attach "${PROGRAM}")
if(NOT report_out MATCHES "store p->stop [^\n]* inlined in main\\+(0x[0-9a-f]+)")
  e2e_fail("the report does not place the store in main")
endif()
set(offset "${CMAKE_MATCH_1}")
file(WRITE "${WORKDIR}/main.batch" "x/i main\nquit\n")
e2e_exec(main "${CTRL}" attach --batch "${WORKDIR}/main.batch" "${PROGRAM}")
if(NOT main_out MATCHES "(0x[0-9a-f]+) <main")
  e2e_fail("x/i main printed no address")
endif()
math(EXPR address "${CMAKE_MATCH_1} + ${offset}" OUTPUT_FORMAT HEXADECIMAL)
file(WRITE "${WORKDIR}/break.batch" "break *${address}\ncontinue\nquit\n")
e2e_exec(brk "${CTRL}" attach --batch "${WORKDIR}/break.batch" "${PROGRAM}")
e2e_expect_exit("${brk_rc}" 0 "break *ADDRESS")
if(NOT brk_out MATCHES "Breakpoint 1, T0 is about to perform step [0-9]+: store [^ ]+ at pool_stop at pool_stop_unlocked\\.c:49")
  e2e_fail("break *${address} did not stop before the store of line 49")
endif()
message(STATUS "ok: step N, watch EXPR, break *ADDRESS, save errors at the prompt")
