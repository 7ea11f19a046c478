# One batch of the DPOR cross-check: for each case, gen_and_count writes a
# small concurrent C program and counts its Mazurkiewicz classes by brute
# force; the batch's programs are compiled together into one (gcc -O2
# -pthread; `batch K` runs the K-th case, with its own threads and
# variables), its machine code is checked to do exactly the modelled
# accesses, case by case, and `ctrl attach --strategy dpor batch K` must
# report exactly that many complete executions, exhaustively, with no bug,
# under sequential consistency (the model the count assumes).
#
#   cmake -DTOOL=<gen_and_count> -DCTRL=<ctrl> -DCC=<gcc> -DOBJDUMP=<objdump>
#         -DWORKDIR=<dir>
#         [-DFIRST=<seed> -DLAST=<seed>] [-DFIXED=ON] [-DBUDGET=<seconds>]
#         [-DCTRL_ARGS="--dpor optimal"] [-DNO_BLOCKED=ON] [-DEQUIV=rf-sc]
#         [-DCTRL_ARGS2=... -DNO_BLOCKED2=ON -DEQUIV2=rf-tso]
#         -P crosscheck.cmake
#
# FIRST..LAST: the random programs of those seeds; FIXED: the hand-written
# cases (gen_and_count fixed), whose counts are also checked against the
# known ones. Every case is run; then the test fails if any did, after
# printing for each failure the case, the program, both counts and what ctrl
# printed. A failing case stays in WORKDIR/<case>/ (the passing ones are
# removed; the batch program stays in WORKDIR/batch while any case fails);
# `gen_and_count classes <case>` lists one interleaving per class.
# CTRL_ARGS: more options of ctrl attach (space-separated), e.g. a DPOR mode.
# NO_BLOCKED: the mode promises that no execution ends sleep-set-blocked
# (optimal DPOR): a case with one fails.
# EQUIV: what the brute force counts (gen_and_count's EQUIV): mazurkiewicz
# (the default), rf-sc or rf-tso (reads-from classes, for --equivalence rf;
# rf-tso expects ctrl to run --model tso).
# CTRL_ARGS2, NO_BLOCKED2, EQUIV2: a second mode checked on the same compiled
# program: each case then counts twice and runs ctrl twice; a failure names
# the mode. EQUIV2 defaults to EQUIV.

cmake_minimum_required(VERSION 3.20)

foreach(var TOOL CTRL CC OBJDUMP WORKDIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "crosscheck.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED BUDGET)
  set(BUDGET 400)
endif()
string(TIMESTAMP start "%s" UTC)
if(NOT DEFINED EQUIV OR EQUIV STREQUAL "")
  set(EQUIV mazurkiewicz)
endif()
# Modes: 1, and 2 when a second one is given.
set(modes 1)
set(EQUIV_1 "${EQUIV}")
set(CTRL_ARGS_1 "${CTRL_ARGS}")
set(NO_BLOCKED_1 "${NO_BLOCKED}")
if(DEFINED CTRL_ARGS2 OR DEFINED EQUIV2 OR DEFINED NO_BLOCKED2)
  list(APPEND modes 2)
  if(NOT DEFINED EQUIV2 OR EQUIV2 STREQUAL "")
    set(EQUIV2 "${EQUIV}")
  endif()
  set(EQUIV_2 "${EQUIV2}")
  set(CTRL_ARGS_2 "${CTRL_ARGS2}")
  set(NO_BLOCKED_2 "${NO_BLOCKED2}")
endif()
list(LENGTH modes nmodes)

set(cases "")
if(DEFINED FIRST AND DEFINED LAST)
  foreach(seed RANGE ${FIRST} ${LAST})
    list(APPEND cases ${seed})
  endforeach()
endif()
if(FIXED)
  execute_process(COMMAND "${TOOL}" fixed RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "'${TOOL} fixed' failed (${rc}): ${err}")
  endif()
  string(REGEX MATCHALL "fixed:[A-Za-z0-9_]+" fixed_cases "${out}")
  list(APPEND cases ${fixed_cases})
endif()
list(LENGTH cases ncases)
if(ncases EQUAL 0)
  message(FATAL_ERROR "crosscheck.cmake: no cases (give FIRST and LAST, or FIXED=ON)")
endif()

file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")

set(failures "")    # one line per failing case
set(details "")     # everything about the first few
set(ndetailed 0)
set(sum_classes 0)
set(npassed 0)      # cases that ran and agreed
set(sum_blocked 0)

# fail_case(<case> <reason>): records a failure; the first 5 get the source
# and ctrl's output in the log. Reads dir, gen_out and run_* of the caller.
function(fail_case case reason)
  set(label "${case}")
  if(nmodes GREATER 1)
    set(label "${case} (${EQUIV}: ${CTRL_ARGS})")
  endif()
  string(REPLACE ";" "," line "${label}: ${reason}")
  set(failures ${failures} "${line}" PARENT_SCOPE)
  if(ndetailed LESS 5)
    math(EXPR n "${ndetailed} + 1")
    set(ndetailed ${n} PARENT_SCOPE)
    set(src "")
    if(EXISTS "${dir}/prog.c")
      file(READ "${dir}/prog.c" src)
    endif()
    set(report "")
    if(EXISTS "${dir}/report.json")
      file(READ "${dir}/report.json" report)
    endif()
    string(APPEND details
      "==================== case ${label}: ${reason}\n"
      "-- brute force (gen_and_count gen ${case} ${EQUIV}): ${gen_out}"
      "-- program (${dir}/prog.c):\n${src}"
      "-- $ ${CTRL} attach --strategy dpor --races off ${CTRL_ARGS} --json report.json --trace-dir traces ${WORKDIR}/batch ${k}\n"
      "-> exit status ${run_rc}\n-- stdout:\n${run_out}\n-- stderr:\n${run_err}\n"
      "-- report.json:\n${report}\n"
      "-- one interleaving per class: ${TOOL} classes ${case} ${EQUIV}\n")
    set(details "${details}" PARENT_SCOPE)
  endif()
endfunction()

set(counted "")  # the cases whose brute-force counts are in
# out_of_time(<case> <var>): sets <var> when the budget is spent, and then
# records that <case> and the ones after it were not run.
function(out_of_time case var)
  string(TIMESTAMP now "%s" UTC)
  math(EXPR elapsed "${now} - ${start}")
  set(${var} OFF PARENT_SCOPE)
  if(elapsed GREATER BUDGET)
    set(${var} ON PARENT_SCOPE)
    set(failures ${failures} "${case} and the cases after it: not run, out of time (BUDGET ${BUDGET} s)" PARENT_SCOPE)
  endif()
endfunction()

foreach(case IN LISTS cases)
  out_of_time("${case}" late)
  if(late)
    break()
  endif()
  string(REPLACE ":" "_" name "${case}")
  set(dir "${WORKDIR}/${name}")
  file(MAKE_DIRECTORY "${dir}")
  set(gen_out "")
  set(run_rc "(not run)")
  set(run_out "")
  set(run_err "")

  # Each mode's brute-force count (the program is the same for all).
  set(gen_failed OFF)
  foreach(m IN LISTS modes)
    set(EQUIV "${EQUIV_${m}}")
    set(CTRL_ARGS "${CTRL_ARGS_${m}}")
    execute_process(COMMAND "${TOOL}" gen "${case}" "${dir}/prog.c" ${EQUIV}
      RESULT_VARIABLE rc OUTPUT_VARIABLE gen_out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT gen_out MATCHES "^classes ([0-9]+) ")
      fail_case("${case}" "gen_and_count failed (${rc}): ${err}${gen_out}")
      set(gen_failed ON)
      break()
    endif()
    set(expected_${m} "${CMAKE_MATCH_1}")
    set(gen_out_${m} "${gen_out}")
  endforeach()
  if(gen_failed)
    continue()
  endif()
  foreach(m IN LISTS modes)
    set(expected_${m}_${name} "${expected_${m}}")
    set(gen_out_${m}_${name} "${gen_out_${m}}")
  endforeach()
  list(APPEND counted ${case})
endforeach()

# One program for the whole batch (gen_and_count batch): `batch K` runs the
# K-th counted case. Compiling and linking a program per case was most of a
# case's time. Its machine code is checked once, case by case.
set(batch_cases "")
if(counted)
  set(EQUIV "${EQUIV_1}")
  set(CTRL_ARGS "${CTRL_ARGS_1}")
  set(batch_failed "")
  execute_process(COMMAND "${TOOL}" batch "${WORKDIR}/batch.c" ${counted}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(batch_failed "gen_and_count batch failed (${rc}): ${err}")
  else()
    execute_process(COMMAND "${CC}" -O2 -pipe -pthread -o "${WORKDIR}/batch" "${WORKDIR}/batch.c"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      set(batch_failed "the batch does not compile (${rc}): ${err}")
    endif()
  endif()
  set(bad_code "")
  set(verify_err "")
  if(NOT batch_failed)
    execute_process(COMMAND "${TOOL}" verify-batch "${WORKDIR}/batch" "${OBJDUMP}" ${counted}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE verify_err)
    string(REGEX MATCHALL "fail [0-9]+" bad_code "${out}")
    if(NOT rc EQUAL 0 AND NOT bad_code)
      set(batch_failed "gen_and_count verify-batch failed (${rc}): ${verify_err}")
    endif()
  endif()
  set(k 0)
  foreach(case IN LISTS counted)
    string(REPLACE ":" "_" name "${case}")
    set(dir "${WORKDIR}/${name}")
    set(gen_out "${gen_out_1_${name}}")
    set(run_rc "(not run)")
    set(run_out "")
    set(run_err "")
    if(batch_failed)
      fail_case("${case}" "${batch_failed}")
    elseif("fail ${k}" IN_LIST bad_code)
      fail_case("${case}" "the compiled code does not match the model (generator bug):\n${verify_err}")
    else()
      list(APPEND batch_cases "${case}:${k}")
    endif()
    math(EXPR k "${k} + 1")
  endforeach()
endif()

foreach(entry IN LISTS batch_cases)
  string(REGEX MATCH "^(.*):([0-9]+)$" _ "${entry}")
  set(case "${CMAKE_MATCH_1}")
  set(k "${CMAKE_MATCH_2}")
  out_of_time("${case}" late)
  if(late)
    break()
  endif()
  string(REPLACE ":" "_" name "${case}")
  set(dir "${WORKDIR}/${name}")
  foreach(m IN LISTS modes)
    set(expected_${m} "${expected_${m}_${name}}")
    set(gen_out_${m} "${gen_out_${m}_${name}}")
  endforeach()
  set(case_ok ON)
  foreach(m IN LISTS modes)
    set(EQUIV "${EQUIV_${m}}")
    set(CTRL_ARGS "${CTRL_ARGS_${m}}")
    set(NO_BLOCKED "${NO_BLOCKED_${m}}")
    set(expected "${expected_${m}}")
    set(gen_out "${gen_out_${m}}")
    separate_arguments(ctrl_args UNIX_COMMAND "${CTRL_ARGS}")
    set(expected_model sc)
    if(EQUIV STREQUAL "rf-tso")
      set(expected_model tso)
    endif()
    set(run_rc "(not run)")
    set(run_out "")
    set(run_err "")
    set(case_ok OFF)
    file(REMOVE "${dir}/report.json")
    # --races off: the generated programs apply __atomic builtins to plain
    # ints (relaxed ones are plain movs no DWARF marks atomic) and the check
    # is about DPOR's classes, not races.
    execute_process(COMMAND "${CTRL}" attach --strategy dpor --races off ${ctrl_args} --json "${dir}/report.json"
        --trace-dir "${dir}/traces" "${WORKDIR}/batch" ${k}
      WORKING_DIRECTORY "${dir}"
      RESULT_VARIABLE run_rc OUTPUT_VARIABLE run_out ERROR_VARIABLE run_err
      TIMEOUT 120)
    if(NOT run_rc STREQUAL "0")
      fail_case("${case}" "ctrl exit status ${run_rc}, expected 0")
      break()
    endif()
    if(NOT EXISTS "${dir}/report.json")
      fail_case("${case}" "ctrl wrote no JSON report")
      break()
    endif()
    file(READ "${dir}/report.json" json)
    string(JSON complete ERROR_VARIABLE e1 GET "${json}" executions complete)
    string(JSON blocked ERROR_VARIABLE e2 GET "${json}" executions blocked)
    string(JSON blocked_type ERROR_VARIABLE e2b TYPE "${json}" executions blocked)
    string(JSON exhaustive ERROR_VARIABLE e3 GET "${json}" exhaustive)
    string(JSON nbugs ERROR_VARIABLE e4 LENGTH "${json}" bugs)
    string(JSON strategy ERROR_VARIABLE e5 GET "${json}" strategy)
    if(e1 OR e2 OR e2b OR e3 OR e4 OR e5 OR NOT blocked_type STREQUAL "NUMBER")
      fail_case("${case}" "report.json lacks executions.complete, executions.blocked (a number), exhaustive, bugs or strategy")
      break()
    endif()
    string(JSON model ERROR_VARIABLE e6 GET "${json}" model)
    if(NOT e6 AND NOT model STREQUAL expected_model)
      fail_case("${case}" "memory model ${model}: the brute force counts ${expected_model} classes")
      break()
    endif()
    if(NOT strategy MATCHES "^dpor")
      fail_case("${case}" "strategy ${strategy}, expected dpor (or a DPOR mode)")
      break()
    endif()
    if(NOT exhaustive)
      fail_case("${case}" "exploration not exhaustive")
      break()
    endif()
    if(NOT nbugs EQUAL 0)
      fail_case("${case}" "${nbugs} bugs reported, expected none")
      break()
    endif()
    if(NOT complete EQUAL expected)
      if(complete GREATER expected)
        set(how "duplicates: some class explored more than once")
      else()
        set(how "missing classes")
      endif()
      fail_case("${case}" "ctrl: ${complete} complete executions (${blocked} blocked), brute force: ${expected} classes (${how})")
      break()
    endif()
    if(NO_BLOCKED AND NOT blocked EQUAL 0)
      fail_case("${case}" "${blocked} sleep-set-blocked executions, expected none (redundant wakeup tree branches)")
      break()
    endif()
    math(EXPR sum_classes "${sum_classes} + ${expected}")
    math(EXPR sum_blocked "${sum_blocked} + ${blocked}")
    set(case_ok ON)
  endforeach()
  if(NOT case_ok)
    continue()
  endif()
  file(REMOVE_RECURSE "${dir}")
  math(EXPR npassed "${npassed} + 1")
endforeach()

string(TIMESTAMP now "%s" UTC)
math(EXPR elapsed "${now} - ${start}")
list(LENGTH failures nfailed)
if(nfailed EQUAL 0)
  file(REMOVE "${WORKDIR}/batch" "${WORKDIR}/batch.c")
endif()
message("crosscheck: ${npassed}/${ncases} cases agree (${sum_classes} classes, ${sum_blocked} sleep-set-blocked executions), ${elapsed} s")
if(nfailed GREATER 0 OR NOT npassed EQUAL ncases)
  math(EXPR nother "${ncases} - ${npassed}")
  list(JOIN failures "\n  " lines)
  message("${details}")
  message(FATAL_ERROR "crosscheck: ${nother} of ${ncases} cases disagree or did not run:\n  ${lines}")
endif()
