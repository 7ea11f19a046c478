# What "the same exploration as -j 1" means for a run that shared its work
# (-j N: check_parallel.cmake; --mpi: check_mpi.cmake): the rules that turn
# two runs' JSON reports and stdout into what must be equal. One place, so
# that -j and --mpi are held to the same standard.
#
#   same_exploration_normalise(TAG RAW_OUT_VAR TRACES)
#     reads json_<TAG> (the report's text) and sets json_<TAG>, out_<TAG>
#     (the stdout in variable RAW_OUT_VAR, normalised), restores_<TAG> and
#     trace_<TAG>_<bug> (each bug's trace path) in the caller's scope.
#     (Macros, so that they set the caller's variables; every value is
#     passed by its variable's name, since a macro's arguments are pasted
#     into its body as text.)
#   same_exploration_partitioned(TAG)
#     for a partitioned DPOR run: also leaves out what the partition may
#     change; sets bugs_<TAG> (the bugs' kinds and messages, sorted) and
#     nbugs_<TAG>.
#   same_exploration_compare(A B A_NAME B_NAME)
#     fails unless exit statuses <A>_rc/<B>_rc, json_ and out_ are equal.

# Always different from run to run: times, restores (fewer executions run on
# the explorer's session), the parallel section, where traces go, the kernel
# thread ids and the frames of threads caught anywhere at a bug (as in the
# middle of abort()).
macro(same_exploration_normalise tag raw_out_var traces)
  string(JSON restores_${tag} GET "${json_${tag}}" checkpoint_restores)
  foreach(key elapsed_seconds checkpoint_restores parallel user_handoffs user_thread_starts user_thread_ends)
    string(JSON json_${tag} REMOVE "${json_${tag}}" ${key})
  endforeach()
  string(JSON _se_nbugs LENGTH "${json_${tag}}" bugs)
  if(_se_nbugs GREATER 0)
    math(EXPR _se_last "${_se_nbugs} - 1")
    foreach(_se_b RANGE ${_se_last})
      string(JSON _se_trace GET "${json_${tag}}" bugs ${_se_b} trace)
      set(trace_${tag}_${_se_b} "${_se_trace}")
      get_filename_component(_se_trace "${_se_trace}" NAME)
      string(JSON json_${tag} SET "${json_${tag}}" bugs ${_se_b} trace "\"${_se_trace}\"")
      # The stacks at the bug (issue 25: per-bug JSON) hold kernel thread
      # ids and the frames of threads caught anywhere: as the text's.
      string(JSON json_${tag} REMOVE "${json_${tag}}" bugs ${_se_b} stacks)
    endforeach()
  endif()
  string(REGEX REPLACE "[0-9]+\\.[0-9]+ s" "T s" out_${tag} "${${raw_out_var}}")
  string(REGEX REPLACE "tid [0-9]+" "tid N" out_${tag} "${out_${tag}}")
  string(REGEX REPLACE "\n +#[0-9]+ [^\n]*" "" out_${tag} "${out_${tag}}")
  string(REGEX REPLACE "the default ran [0-9]+ such" "the default ran N such" out_${tag} "${out_${tag}}")
  string(REPLACE "${traces}" "TRACES" out_${tag} "${out_${tag}}")
endmacro()

# Partitioned DPOR (PartitionedDpor.h): the complete executions are one per
# class however the work was shared, but how many end blocked by their sleep
# sets, and so the executions, steps and hand-offs in all, which execution of
# a class meets a bug first (its number, trace, steps, preemptions and how
# often its kind recurs), and which execution ran last on the explorer's
# session (what the files are left as) depend on the order races are found
# in. The default strategy's probes follow the search's executions in all,
# blocked ones included. Compared there: the complete executions, the verdict
# and each bug's kind and message. When the run was cut (by the first bug,
# without --keep-going, or by --max-executions), the searches ran different
# parts of the tree first: the complete executions and the executions checked
# for races are not compared either (issue 28, item 2: no deterministic rule
# for the first bug is built; docs/PERFORMANCE.md).
macro(same_exploration_partitioned tag)
  foreach(key blocked total probes)
    string(JSON json_${tag} REMOVE "${json_${tag}}" executions ${key})
  endforeach()
  foreach(key steps handoffs files)
    string(JSON json_${tag} REMOVE "${json_${tag}}" ${key})
  endforeach()
  string(JSON nbugs_${tag} LENGTH "${json_${tag}}" bugs)
  set(bugs_${tag} "")
  if(nbugs_${tag} GREATER 0)
    math(EXPR _se_last "${nbugs_${tag}} - 1")
    foreach(_se_b RANGE ${_se_last})
      string(JSON _se_kind GET "${json_${tag}}" bugs ${_se_b} kind)
      string(JSON _se_message GET "${json_${tag}}" bugs ${_se_b} message)
      list(APPEND bugs_${tag} "${_se_kind}: ${_se_message}")
    endforeach()
    list(SORT bugs_${tag})
  endif()
  string(JSON json_${tag} REMOVE "${json_${tag}}" bugs)
  string(JSON _se_exhaustive GET "${json_${tag}}" exhaustive)
  string(JSON _se_limit ERROR_VARIABLE _se_no_limit GET "${json_${tag}}" stopped_by_limit)
  if((nbugs_${tag} GREATER 0 AND NOT _se_exhaustive) OR _se_limit STREQUAL "max-executions")
    string(JSON json_${tag} REMOVE "${json_${tag}}" executions complete)
    string(JSON json_${tag} REMOVE "${json_${tag}}" races checked_executions)
    string(REGEX REPLACE "[0-9]+ complete, [0-9]+ blocked" "N complete, N blocked" out_${tag} "${out_${tag}}")
  endif()
  string(REGEX REPLACE "[0-9]+ executions \\(([0-9N]+) complete, [0-9N]+ blocked" "N executions (\\1 complete, N blocked"
    out_${tag} "${out_${tag}}")
  string(REGEX REPLACE "exec[0-9]+" "execN" out_${tag} "${out_${tag}}")
  string(REGEX REPLACE "; [0-9]+ probes? by pos and pct(, [0-9]+ of them cut)?" "" out_${tag} "${out_${tag}}")
  # A bug's text (its schedule, its stacks) is that of another execution of
  # the class: only the report's counts and bugs are compared.
  if(nbugs_${tag} GREATER 0)
    set(out_${tag} "")
  endif()
endmacro()

macro(same_exploration_compare a b a_name b_name)
  if(DEFINED bugs_${a} OR DEFINED bugs_${b})
    if(NOT "${bugs_${a}}" STREQUAL "${bugs_${b}}")
      e2e_fail("the bugs differ:\n${a_name}: ${bugs_${a}}\n${b_name}: ${bugs_${b}}")
    endif()
  endif()
  # A restore skips the steps before its checkpoint: the steps and hand-offs
  # run depend on how many executions ran where.
  if(NOT restores_${a} EQUAL 0 OR NOT restores_${b} EQUAL 0)
    foreach(_se_t ${a} ${b})
      string(JSON json_${_se_t} REMOVE "${json_${_se_t}}" steps)
      string(JSON json_${_se_t} REMOVE "${json_${_se_t}}" handoffs)
    endforeach()
  endif()
  if(NOT ${a}_rc STREQUAL ${b}_rc)
    e2e_fail("exit status ${${a}_rc} with ${a_name} but ${${b}_rc} with ${b_name}")
  endif()
  string(JSON _se_same EQUAL "${json_${a}}" "${json_${b}}")
  if(NOT _se_same)
    e2e_fail("the JSON reports differ (times and parallel removed):\n${a_name}: ${json_${a}}\n${b_name}: ${json_${b}}")
  endif()
  if(NOT out_${a} STREQUAL out_${b})
    e2e_fail("stdout differs (times removed):\n${a_name}:\n${out_${a}}\n${b_name}:\n${out_${b}}")
  endif()
endmacro()
