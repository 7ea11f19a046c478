# PCT's probability bound (Burckhardt et al., ASPLOS 2010) on a program whose
# bug depth is known: each execution of `--strategy pct --pct-depth D` finds
# a bug of depth D among N threads in at most K steps with probability at
# least 1/(N K^(D-1)). (Half of them draw their change points over steps,
# the paper's bound; the others over the W <= K write steps, which bounds
# them by 1/(N W^(D-1)) when every preemption the bug needs comes just
# before a write: PROGRAM's bug must be such a bug.)
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<program>
#         -DDEPTH=D -DTHREADS=N -DMAX_STEPS=K -DEXECUTIONS=E [-DSEED=S]
#         -P check_pct_bound.cmake
#
# Checks:
#  - ctrl attach --strategy pct --pct-depth D --seed S --max-executions E (all three with
#    --races off: the bound is about the assertion; the program races by design)
#    --max-steps K --keep-going ran E executions, none cut by --max-steps (so
#    every one took fewer than K steps), and exits 1;
#  - the buggy executions (the occurrences of the bugs in the JSON report)
#    are at least E / (N K^(D-1)). The seed fixes every schedule, so the
#    count is the same on every run: it cannot flake;
#  - the first bug's trace replays (ctrl replay exits 1 with the same kind);
#  - the same number of random executions finds no bug, nor does any
#    schedule without preemptions (--preemption-bound 0, exhaustive): the
#    bug needs a preemption at the right place, which PCT's change points
#    make and a random walk almost never does.

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

foreach(var PROGRAM DEPTH THREADS MAX_STEPS EXECUTIONS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_pct_bound.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED SEED)
  set(SEED 1)
endif()

e2e_fresh_workdir()
file(MAKE_DIRECTORY "${WORKDIR}/traces")

set(what "ctrl attach --strategy pct --pct-depth ${DEPTH}")
e2e_exec(run "${CTRL}" attach --strategy pct --pct-depth ${DEPTH} --seed ${SEED} --max-executions ${EXECUTIONS}
  --max-steps ${MAX_STEPS} --races off --keep-going --json "${WORKDIR}/pct.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${run_rc}" 1 "${what}")
e2e_check_report(pct "${WORKDIR}/pct.json" "${what}")
string(JSON strategy GET "${pct_json}" strategy)
if(NOT strategy STREQUAL "pct")
  e2e_fail("${what}: \"strategy\" is '${strategy}', expected 'pct'")
endif()
string(JSON complete GET "${pct_json}" executions complete)
if(NOT pct_total EQUAL EXECUTIONS OR NOT complete EQUAL EXECUTIONS)
  e2e_fail("${what}: ${pct_total} executions, ${complete} complete; expected ${EXECUTIONS}, none cut by --max-steps")
endif()
set(found 0)
math(EXPR last "${pct_nbugs} - 1")
foreach(i RANGE ${last})
  string(JSON n GET "${pct_json}" bugs ${i} occurrences)
  math(EXPR found "${found} + ${n}")
endforeach()
# found / E >= 1 / (N K^(D-1)), in integers.
set(denominator ${THREADS})
foreach(i RANGE 2 ${DEPTH})
  math(EXPR denominator "${denominator} * ${MAX_STEPS}")
endforeach()
math(EXPR scaled "${found} * ${denominator}")
message("pct --pct-depth ${DEPTH}: ${found} of ${EXECUTIONS} executions found the bug; "
        "bound 1/${denominator} of them: ${EXECUTIONS}/${denominator}")
if(scaled LESS EXECUTIONS)
  e2e_fail("${what}: ${found} of ${EXECUTIONS} executions found the bug, fewer than the bound 1/${denominator}")
endif()

e2e_exec(replay "${CTRL}" replay --json "${WORKDIR}/replay.json" "${pct_trace}")
e2e_expect_exit("${replay_rc}" 1 "ctrl replay of the pct trace")
e2e_check_report(replayed "${WORKDIR}/replay.json" "ctrl replay" REPLAY)
if(NOT replayed_kind STREQUAL pct_kind)
  e2e_fail("ctrl replay: a bug of kind '${replayed_kind}', the trace's is '${pct_kind}'")
endif()

e2e_exec(random "${CTRL}" attach --strategy random --seed ${SEED} --max-executions ${EXECUTIONS}
  --max-steps ${MAX_STEPS} --races off --json "${WORKDIR}/random.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${random_rc}" 0 "ctrl attach --strategy random (no bug expected)")
e2e_exec(bounded "${CTRL}" attach --preemption-bound 0 --max-steps ${MAX_STEPS} --races off
  --json "${WORKDIR}/bounded.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${bounded_rc}" 0 "ctrl attach --preemption-bound 0 (no bug expected)")
e2e_check_report(bounded "${WORKDIR}/bounded.json" "ctrl attach --preemption-bound 0")
string(JSON bound_done GET "${bounded_json}" preemption_bound_completed)
if(NOT bound_done EQUAL 0)
  e2e_fail("ctrl attach --preemption-bound 0: bound 0 not completed (${bound_done})")
endif()
