# One batch of --model ra's cross-check of ctrl itself: for each seed in
# FIRST..LAST, `ra_crosscheck emit` writes a random load/store program as C
# and prints the oracle's count of its RA-consistent weak traces; the
# program is compiled (libatomic calls) and `ctrl attach --model ra` must
# explore exactly that many consistent executions, none infeasible, none
# redundant. Arguments: TOOL CTRL CC WORKDIR FIRST LAST, and RMW (1: the
# programs have fetch-adds too; infeasible runs are then allowed, wasted
# runs, not wrong counts: WeakTraceStrategy.h).
file(MAKE_DIRECTORY ${WORKDIR})
set(failures 0)
foreach(seed RANGE ${FIRST} ${LAST})
  set(src ${WORKDIR}/p${seed}.c)
  if(NOT DEFINED RMW)
    set(RMW 0)
  endif()
  execute_process(COMMAND ${TOOL} emit ${seed} 3 7 ${src} ${RMW} OUTPUT_VARIABLE want RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "seed ${seed}: ra_crosscheck emit failed")
  endif()
  execute_process(COMMAND ${CC} -O1 -fno-inline-atomics -pthread -o ${WORKDIR}/p${seed} ${src} -latomic
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "seed ${seed}: compile failed: ${err}")
  endif()
  execute_process(COMMAND ${CTRL} attach --model ra ${WORKDIR}/p${seed}
    WORKING_DIRECTORY ${WORKDIR} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  set(expect "${want} consistent, 0 infeasible, 0 redundant")
  if(RMW)
    set(expect "${want} consistent, [0-9]+ infeasible, 0 redundant")
  endif()
  if(NOT rc EQUAL 0 OR NOT out MATCHES "; ${expect}\\)")
    file(READ ${src} text)
    string(REGEX MATCH "[0-9]+ executions \\([^\n]*" summary "${out}")
    message(STATUS "seed ${seed}: oracle ${want}, ctrl: ${summary} (exit ${rc})\n${text}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} of the programs ${FIRST}..${LAST} disagree with the oracle")
endif()
message(STATUS "seeds ${FIRST}..${LAST}: ctrl --model ra agrees with the oracle on every program")
