# ctrl --model ra on samples/ra/exponential_bug N against the brute-force
# oracle of ra_flow_enumerate.h (`ra_crosscheck flow exponential_bug N`):
# exactly the oracle's count of RA-consistent weak traces, none infeasible,
# none redundant. Arguments: TOOL CTRL PROGRAM N WORKDIR.
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${TOOL} flow exponential_bug ${N} OUTPUT_VARIABLE want RESULT_VARIABLE rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT want MATCHES "^[0-9]+$")
  message(FATAL_ERROR "ra_crosscheck flow exponential_bug ${N} failed (${rc}): ${want}")
endif()
execute_process(COMMAND ${CTRL} attach --model ra ${PROGRAM} ${N}
  WORKING_DIRECTORY ${WORKDIR} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "; ${want} consistent, 0 infeasible, 0 redundant\\), 0 bugs, exhaustive: yes")
  string(REGEX MATCH "[0-9]+ executions \\([^\n]*" summary "${out}")
  message(FATAL_ERROR "exponential_bug ${N}: oracle ${want}, ctrl: ${summary} (exit ${rc})")
endif()
message(STATUS "exponential_bug ${N}: ctrl --model ra explores the oracle's ${want} weak traces")
