# A bug report that names and explains (issue 25, items 2 and 3), on one
# sample with a bug:
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<dir> -DPROGRAM=<program> "-DCTRL_ARGS=..."
#         "-DEXPECT_NAMES=<regex>;<regex>..." -P check_report_explains.cmake
#
# Checks that `ctrl attach` finds a bug and its report
#  - has every regex of EXPECT_NAMES in its interleaving (the objects the
#    steps touch, by their source names);
#  - marks deciding steps (`>` lines saying `<< decides` or `then waits`),
#    and as many `<< preempts` lines as the header counts preemptions;
#  - lists only the program's threads (no `T?`, nothing "not controlled by
#    ctrl"), finished ones without frames;
#  - names in its headline the place the bug thread's frame #0 names;
#  - saves the trace under the execution number it reports;
# and that `ctrl replay` of that trace prints the same interleaving, with
# the same marks and counts, and the same preemptions in its JSON.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")
separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
e2e_fresh_workdir()

e2e_exec(run "${CTRL}" attach ${ctrl_args} --json attach.json --trace-dir traces "${PROGRAM}")
e2e_expect_exit("${run_rc}" 1 "attach")
file(READ "${WORKDIR}/attach.json" attach_json)
string(JSON execution GET "${attach_json}" bugs 0 execution)
string(JSON trace GET "${attach_json}" bugs 0 trace)
string(JSON preemptions GET "${attach_json}" bugs 0 preemptions)
if(NOT trace MATCHES "-exec${execution}\\.ctrltrace$")
  e2e_fail("the bug of execution ${execution} was saved as ${trace}")
endif()

# The report from its headline to the backtraces.
function(report_parts prefix text)
  string(FIND "${text}" "\ninterleaving (" at)
  string(FIND "${text}" "\nthreads at the bug:" threads_at)
  if(at LESS 0 OR threads_at LESS 0)
    e2e_fail("${prefix}: no interleaving or no threads in the report")
  endif()
  math(EXPR len "${threads_at} - ${at}")
  string(SUBSTRING "${text}" ${at} ${len} interleaving)
  string(SUBSTRING "${text}" ${threads_at} -1 threads)
  string(FIND "${threads}" "\ntrace saved" end)
  if(end LESS 0)
    string(FIND "${threads}" "\nreplay reproduced" end)
  endif()
  if(end GREATER 0)
    string(SUBSTRING "${threads}" 0 ${end} threads)
  endif()
  # The replay's trace path is given as the user typed it: not compared.
  string(REGEX REPLACE "`ctrl replay --interactive [^`]*`" "`ctrl replay --interactive TRACE`" interleaving
         "${interleaving}")
  set(${prefix}_interleaving "${interleaving}" PARENT_SCOPE)
  set(${prefix}_threads "${threads}" PARENT_SCOPE)
endfunction()
report_parts(attach "${run_out}")

# Heap memory too is named through the pointers the code used, in the
# headline and the threads' states as in the steps (`p->work`).
if(run_out MATCHES "heap\\+0x[0-9a-f]+")
  e2e_fail("the report names memory by a heap offset ('${CMAKE_MATCH_0}')")
endif()
foreach(name IN LISTS EXPECT_NAMES)
  if(NOT attach_interleaving MATCHES "${name}")
    e2e_fail("the interleaving does not name '${name}'")
  endif()
endforeach()
if(NOT attach_interleaving MATCHES "\n> +[0-9]+ [^\n]*<< [^\n]*(decides|then waits)")
  e2e_fail("no deciding step is marked")
endif()
string(REGEX MATCHALL "[<;] preempts" marked_preemptions "${attach_interleaving}")
list(LENGTH marked_preemptions marked)
if(NOT marked EQUAL preemptions)
  e2e_fail("the header counts ${preemptions} preemptions, ${marked} steps are marked as one")
endif()
if(attach_threads MATCHES "T\\?|not controlled by ctrl")
  e2e_fail("the report lists threads that are not the program's")
endif()
if(attach_threads MATCHES "finished\n +#")
  e2e_fail("a finished thread has a backtrace")
endif()
# The headline's place is the bug thread's frame #0.
if(NOT run_out MATCHES "\n  in (T[0-9]+) at ([^\n]+)\n")
  e2e_fail("no headline place")
endif()
set(bug_thread "${CMAKE_MATCH_1}")
set(place "${CMAKE_MATCH_2}")
string(REGEX MATCH "\n  ${bug_thread} \\(tid [0-9]+\\): [^\n]*\n +#0 +([^\n]+)" frame "${attach_threads}")
if(NOT CMAKE_MATCH_1 STREQUAL place)
  e2e_fail("the headline says '${place}', frame #0 of ${bug_thread} '${CMAKE_MATCH_1}'")
endif()

e2e_exec(replay "${CTRL}" replay --json replay.json "${trace}")
e2e_expect_exit("${replay_rc}" 1 "replay")
report_parts(replay "${replay_out}")
if(NOT replay_interleaving STREQUAL attach_interleaving)
  e2e_fail("attach and replay print different interleavings or marks")
endif()
file(READ "${WORKDIR}/replay.json" replay_json)
string(JSON replay_preemptions GET "${replay_json}" bugs 0 preemptions)
string(JSON replay_steps GET "${replay_json}" steps)
if(NOT replay_preemptions EQUAL preemptions)
  e2e_fail("attach counts ${preemptions} preemptions, replay ${replay_preemptions}")
endif()
if(NOT attach_interleaving MATCHES "^\ninterleaving \\(${replay_steps} steps")
  e2e_fail("replay's JSON counts ${replay_steps} steps, not the interleaving's")
endif()
