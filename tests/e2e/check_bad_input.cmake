# ctrl refuses bad usage or input: exit status 2 and one line on stderr.
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DCASE=<case>
#         [-DPROGRAM=<a sample>] [-DTOOL=<ctrl_e2e_tool>] -P check_bad_input.cmake
#
# Cases:
#   no-arguments       ctrl alone
#   unknown-command    ctrl frobnicate
#   unknown-option     ctrl attach --no-such-option PROGRAM
#   missing-program    ctrl attach on a path that does not exist
#   text-file          ctrl attach on an executable text file (no #! line)
#   foreign-elf        ctrl attach on an executable AArch64 ELF file (TOOL)
#   static             ctrl attach on a statically linked PROGRAM
#   missing-trace      ctrl replay on a path that does not exist
#   not-a-trace        ctrl replay on a text file, then on PROGRAM itself
#   truncated-trace    ctrl replay on the first half of a real trace (a bug
#                      found in PROGRAM, which must have one; TOOL)
#   modified-program   a bug is found in a copy of PROGRAM, a byte is then
#                      appended to the copy, and ctrl replay of that trace
#   truncated-elf      ctrl attach on the first half of PROGRAM (TOOL): its
#                      last segment lies past the end of the file
#   bad-trace-dir      --trace-dir under a regular file, on a buggy PROGRAM:
#                      refused before anything runs
#   bad-json           --json in a missing directory, then on a directory,
#                      on a buggy PROGRAM: refused before anything runs (it
#                      used to turn the bug's exit 1 into 2 at the end)
#   bad-numbers        --seed -5, --time-limit nan/inf/-1/1e300, an
#                      overflowing --max-executions, --max-executions -1,
#                      --hang-timeout 0, --max-steps 1e300, --preemption-bound
#                      65, --pct-depth 0, 17 or two, --pct-depth without
#                      --strategy pct: each refused in one short line
#   option-before-program
#                      an unknown option before PROGRAM is refused; after
#                      "--" it is PROGRAM (echo_args), with its arguments
#   c11-inline-atomics --model c11, then rc11, on PROGRAM, whose atomics are
#                      all inline (c11_inline_only): refused, saying so and
#                      how to rebuild it (-fno-inline-atomics -latomic)
#   c11-options        --model c11/rc11 on PROGRAM (libatomic calls) with what
#                      it does not support: another strategy than dpor,
#                      --dpor optimal, --preemption-bound, --monitor sober,
#                      stepping (--interactive, --batch)

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

if(NOT DEFINED CASE)
  message(FATAL_ERROR "check_bad_input.cmake: -DCASE=... is required")
endif()
function(require var)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_bad_input.cmake: case ${CASE} needs -D${var}=...")
  endif()
endfunction()

e2e_fresh_workdir()

# ctrl <args> must refuse: exit status 2, one line on stderr.
function(expect_refused what)
  e2e_exec(run "${CTRL}" ${ARGN})
  e2e_expect_bad_input(run "${what}")
  set(run_err "${run_err}" PARENT_SCOPE)
  set(run_out "${run_out}" PARENT_SCOPE)
endfunction()

# The same, before anything ran: nothing on stdout, and a short message.
function(expect_refused_at_once what)
  expect_refused("${what}" ${ARGN})
  string(STRIP "${run_out}" out)
  if(NOT out STREQUAL "")
    e2e_fail("${what}: refused only after running the program (stdout: ${out})")
  endif()
  # (Paths aside: they are as long as they are.)
  string(REPLACE "${WORKDIR}" "" err "${run_err}")
  if(DEFINED PROGRAM)
    string(REPLACE "${PROGRAM}" "" err "${err}")
  endif()
  string(LENGTH "${err}" n)
  if(n GREATER 160)
    e2e_fail("${what}: a ${n}-character message (expected a short one)")
  endif()
  set(run_err "${run_err}" PARENT_SCOPE)
endfunction()

# Runs ctrl attach on `program` until it finds a bug; sets `var` to its trace.
function(record_bug var program)
  file(MAKE_DIRECTORY "${WORKDIR}/traces")
  set(what "setup: ctrl attach ${program} (to get a trace)")
  e2e_exec(rec "${CTRL}" attach --strategy random --seed 1 --max-executions 500
    --json "${WORKDIR}/record.json" --trace-dir "${WORKDIR}/traces" "${program}")
  e2e_expect_exit("${rec_rc}" 1 "${what}")
  e2e_check_report(rec "${WORKDIR}/record.json" "${what}")
  set(${var} "${rec_trace}" PARENT_SCOPE)
endfunction()

# (file(COPY_FILE) needs CMake 3.21.)
function(copy_file from to)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${from}" "${to}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    e2e_fail("setup: could not copy ${from} to ${to}")
  endif()
endfunction()

function(write_text_file path)
  file(WRITE "${path}" "this is a text file, not a program\n")
  file(CHMOD "${path}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
    GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endfunction()

if(CASE STREQUAL "no-arguments")
  expect_refused("ctrl without arguments")

elseif(CASE STREQUAL "unknown-command")
  expect_refused("an unknown command" frobnicate)

elseif(CASE STREQUAL "unknown-option")
  require(PROGRAM)
  expect_refused("an unknown option of attach" attach --no-such-option "${PROGRAM}")

elseif(CASE STREQUAL "missing-program")
  expect_refused("attach on a missing program" attach "${WORKDIR}/no-such-program")

elseif(CASE STREQUAL "text-file")
  write_text_file("${WORKDIR}/text-file")
  expect_refused("attach on an executable text file" attach "${WORKDIR}/text-file")

elseif(CASE STREQUAL "foreign-elf")
  require(TOOL)
  e2e_exec(gen "${TOOL}" foreign-elf "${WORKDIR}/aarch64-program")
  if(NOT gen_rc EQUAL 0)
    e2e_fail("setup: could not write an AArch64 ELF file")
  endif()
  expect_refused("attach on an AArch64 program" attach "${WORKDIR}/aarch64-program")

elseif(CASE STREQUAL "static")
  require(PROGRAM)
  expect_refused("attach on a statically linked program" attach "${PROGRAM}")

elseif(CASE STREQUAL "missing-trace")
  expect_refused("replay of a missing trace" replay "${WORKDIR}/no-such-trace")

elseif(CASE STREQUAL "not-a-trace")
  require(PROGRAM)
  write_text_file("${WORKDIR}/text-file")
  expect_refused("replay of a text file" replay "${WORKDIR}/text-file")
  expect_refused("replay of a program" replay "${PROGRAM}")

elseif(CASE STREQUAL "truncated-trace")
  require(PROGRAM)
  require(TOOL)
  record_bug(trace "${PROGRAM}")
  copy_file("${trace}" "${WORKDIR}/truncated.trace")
  e2e_exec(cut "${TOOL}" truncate "${WORKDIR}/truncated.trace")
  if(NOT cut_rc EQUAL 0)
    e2e_fail("setup: could not truncate the trace")
  endif()
  expect_refused("replay of a truncated trace" replay "${WORKDIR}/truncated.trace")

elseif(CASE STREQUAL "modified-program")
  require(PROGRAM)
  get_filename_component(name "${PROGRAM}" NAME)
  set(copy "${WORKDIR}/${name}-copy")
  copy_file("${PROGRAM}" "${copy}")
  file(CHMOD "${copy}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
    GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  record_bug(trace "${copy}")
  # The trace is good as long as the program is the one it was recorded on.
  e2e_exec(check "${CTRL}" replay --json "${WORKDIR}/replay.json" "${trace}")
  e2e_expect_exit("${check_rc}" 1 "setup: replay of the trace before the program changed")
  file(APPEND "${copy}" "x")
  expect_refused("replay of a trace after its program changed" replay "${trace}")

elseif(CASE STREQUAL "truncated-elf")
  require(PROGRAM)
  require(TOOL)
  copy_file("${PROGRAM}" "${WORKDIR}/half-program")
  e2e_exec(cut "${TOOL}" truncate "${WORKDIR}/half-program")
  if(NOT cut_rc EQUAL 0)
    e2e_fail("setup: could not truncate the program")
  endif()
  file(CHMOD "${WORKDIR}/half-program" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  expect_refused_at_once("attach on a truncated ELF file" attach "${WORKDIR}/half-program")

elseif(CASE STREQUAL "bad-trace-dir")
  require(PROGRAM)
  file(WRITE "${WORKDIR}/a-file" "not a directory\n")
  expect_refused_at_once("a --trace-dir that cannot be made"
    attach --trace-dir "${WORKDIR}/a-file/traces" "${PROGRAM}")

elseif(CASE STREQUAL "bad-json")
  require(PROGRAM)
  expect_refused_at_once("a --json file in a missing directory"
    attach --json "${WORKDIR}/no-such-dir/report.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
  expect_refused_at_once("a --json path that is a directory"
    attach --json "${WORKDIR}" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
  if(EXISTS "${WORKDIR}/traces")
    e2e_fail("the trace directory was made (and a bug looked for) before the --json path was refused")
  endif()

elseif(CASE STREQUAL "bad-numbers")
  require(PROGRAM)
  foreach(bad "--seed;-5" "--seed;1.5" "--time-limit;nan" "--time-limit;inf" "--time-limit;-1"
          "--time-limit;1e300" "--max-executions;99999999999999999999999" "--max-executions;-1"
          "--max-executions;0" "--hang-timeout;0" "--hang-timeout;nan" "--max-steps;1e300"
          "--preemption-bound;65" "--strategy;pct;--pct-depth;0" "--strategy;pct;--pct-depth;17"
          "--strategy;pct;--pct-depth;two" "--pct-depth;2")
    list(JOIN bad " " shown)
    expect_refused_at_once("${shown}" attach ${bad} "${PROGRAM}")
  endforeach()

elseif(CASE STREQUAL "option-before-program")
  require(PROGRAM)
  expect_refused_at_once("an unknown option before PROGRAM" attach -T2 "${PROGRAM}")
  e2e_exec(ok "${CTRL}" attach --show-output --trace-dir "${WORKDIR}/traces" -- "${PROGRAM}" -T2 --help)
  e2e_expect_exit("${ok_rc}" 0 "-- PROGRAM -T2 --help")
  if(NOT ok_out MATCHES "args: \\[-T2\\] \\[--help\\]\n")
    e2e_fail("-- PROGRAM -T2 --help: the program did not get its two arguments")
  endif()

elseif(CASE STREQUAL "c11-inline-atomics")
  require(PROGRAM)
  foreach(model c11 rc11)
    expect_refused_at_once("--model ${model} on inline atomics" attach --model ${model} "${PROGRAM}")
    if(NOT run_err MATCHES "inline" OR NOT run_err MATCHES "-fno-inline-atomics -latomic")
      e2e_fail("--model ${model} on inline atomics: the message does not say why and how to rebuild: ${run_err}")
    endif()
  endforeach()

elseif(CASE STREQUAL "c11-options")
  require(PROGRAM)
  foreach(model c11 rc11)
    foreach(strategy random pct pos round-robin)
      expect_refused_at_once("--model ${model} --strategy ${strategy}" attach --model ${model} --strategy ${strategy}
        "${PROGRAM}")
      if(NOT run_err MATCHES "--strategy dpor only")
        e2e_fail("--model ${model} --strategy ${strategy}: the message does not say dpor only: ${run_err}")
      endif()
    endforeach()
    foreach(bad "--dpor;optimal" "--preemption-bound;2" "--monitor;sober" "--interactive"
            "--batch;${WORKDIR}/no-such-script")
      list(JOIN bad " " shown)
      expect_refused_at_once("--model ${model} ${shown}" attach --model ${model} ${bad} "${PROGRAM}")
    endforeach()
  endforeach()

else()
  message(FATAL_ERROR "check_bad_input.cmake: unknown CASE '${CASE}'")
endif()

message(STATUS "ok: ctrl refused it (exit status 2)")
