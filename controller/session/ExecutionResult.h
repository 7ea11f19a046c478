// What one execution of the target came to, as the controller saw it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "Bug.h"
#include "SharedRegion.h"

namespace ctrl {

struct ThreadBacktrace {
  uint32_t thread = 0;  // index in the execution (T0 = main); UINT32_MAX if unknown
  pid_t tid = 0;
  std::string state;    // what the thread was doing
  std::vector<uint64_t> frames;  // innermost first
};

struct ExecutionResult {
  enum class End {
    Complete,     // ran to its end without a bug
    StepBound,    // cut by --max-steps
    Blocked,      // abandoned by the strategy (DPOR: only sleeping threads could run)
    Bug,          // kind/message below
    Diverged,     // a replay went elsewhere than its trace
    Unsupported,  // the program did something ctrl cannot control
    Interrupted,  // Ctrl-C or the time limit
    Paused,       // stepping: waits at a decision for the controller (TailPolicy::Ask)
  };
  End end = End::Complete;
  uint64_t execution = 0;
  BugKind kind = BugKind::None;  // for bugs (protocol/BugKinds.def); None otherwise
  std::string message;           // bug text, divergence or refusal
  BugFacts facts;                // for bugs: signal, fault address, accesses, waits (protocol/Bug.h)
  uint32_t thread = 0;  // thread that hit the bug
  uint64_t site = 0;    // where (code address), 0 if unknown
  int exit_status = 0;
  bool before_checkpoint = false;
  pid_t stopped_tid = 0;           // kernel thread that stopped at the bug  // the program ended before creating a thread
  std::vector<shm::Event> events;  // the interleaving, step by step
  // --model c11/rc11: the Choices of the plan it ran (ExecutionPlan::
  // choices), saved with its trace; empty otherwise.
  std::vector<shm::Choice> choices;
  // Paused, Interrupted: events logged so far (see Session::set_copy_paused_events).
  uint64_t steps = 0;
  uint64_t user_handoffs = 0;  // thread changes without the kernel (agent/Runtime.h)
  // Of those, pool threads started, and ended, on another thread's kernel thread.
  uint64_t user_thread_starts = 0, user_thread_ends = 0;
  // Ended by a process exit or cut by --max-steps: what each unfinished
  // thread was about to do (shm::Header::pending).
  std::vector<shm::Event> pending;
  // A deadlock: what each blocked thread waits in (thread, kind, addr), for
  // the report's deciding steps (reports/CauseMarks.h); strategies are not
  // shown it (the execution ended at the deadlock, not at an exit).
  std::vector<shm::Event> blocked;
  std::vector<ThreadBacktrace> backtraces;
  // Own memory (agent/OwnMemory.h): granule runs of a thread's stack or
  // static TLS, outside the shared set, that another thread's visible
  // operation touched in this execution; `discovered_more`: more than the
  // region holds were found.
  std::vector<shm::Header::Range> discovered;
  bool discovered_more = false;

  // The bug as the typed value every layer reads (None when End is not Bug).
  Bug bug() const { return end == End::Bug ? Bug{kind, message, facts} : Bug{}; }
  std::string_view kind_name() const { return bug_kind_name(kind); }
};

}  // namespace ctrl
