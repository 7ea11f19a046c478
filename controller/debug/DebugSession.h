// One paused execution that a user steps through: the object behind the
// interactive prompt (DebugPrompt), the gdb server (GdbServer) and
// `explore` from a step.
//
// Invariants:
//  - Between calls the execution is paused at a decision: every thread of
//    the target is parked at its pending visible operation (or finished), so
//    what threads(), read_memory(), registers() and backtrace() return is
//    exact and stays so until the next step.
//  - position() steps have been performed; schedule() holds the thread chosen
//    at each of them and events() what each did. Going back or forward
//    (go_to) re-creates the execution at that step from a checkpoint or from
//    the start, by replaying schedule(): the state is the same as when the
//    step was first reached (the agent checks each event's signature).
//  - A recording (replay) lists the decisions to follow. Choosing another
//    thread than the recorded one at some step leaves the recording: the
//    schedule from there is the user's, and save() writes it.
//  - When the execution ends (the program exited, or a bug: crash,
//    assertion, deadlock, hang) the session stays at that end: inspection
//    answers about the state at the bug while the process is kept, and
//    go_to/back still work.
//
// Its members are defined by concept: DebugSession.cpp (the known path,
// where an execution stopped, save and explore), DebugMoves.cpp (step,
// continue, goto, back, restart) and DebugInspection.cpp (threads, memory,
// registers, frames), over the state in DebugSessionImpl.h; breakpoints are
// a BreakpointSet and checkpoints StepCheckpoints.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "SharedRegion.h"
#include "debug/BreakpointSet.h"
#include "exploration/Explorer.h"
#include "session/ExecutionResult.h"
#include "session/StepCheckpoints.h"
#include "trace.pb.h"

namespace ctrl {

class Session;
class Symbolizer;

// What a thread is doing at the current step.
struct ThreadView {
  uint32_t index = 0;  // T<index>
  pid_t tid = 0;
  enum class State { Running, Enabled, Blocked, Finished } state = State::Enabled;
  OpKind pending = OpKind::ThreadStart;  // its next visible operation
  uint64_t pending_addr = 0;             // object or memory it touches (0: none)
  uint64_t pending_site = 0;             // where (call's return address or instruction)
  std::string operation;                 // "mutex_lock m2": the pending operation and its object
  std::string description;               // "blocked in mutex_lock m2 (waits for T1)", "enabled: ..."
  std::string where;                     // "worker+0x1c at x.c:12"
};

// Registers of a thread's innermost program frame (the caller of the
// interposed function, or the instruction the thread is parked at).
// Registers the unwinder could not recover are not in `known`.
struct ThreadRegisters {
  user_regs_struct regs{};
  // Bit i set: the i-th 8-byte field of user_regs_struct is known.
  uint64_t known = 0;
};

enum class StopReason {
  Step,            // the asked steps were done
  Breakpoint,      // a thread is about to perform an operation at a breakpoint
  Watchpoint,      // a thread is about to touch a watched location
  Bug,             // the execution ended in a bug (bug() says which)
  Exited,          // the program ended normally
  EndOfRecording,  // `continue` along a recording reached its last decision
  Interrupted,     // Ctrl-C
};

struct StopInfo {
  StopReason reason = StopReason::Step;
  uint32_t thread = UINT32_MAX;  // the thread at the breakpoint/watchpoint, or at the bug
  int breakpoint = -1;           // its number
  std::string message;           // one line for the user
  // A Ctrl-C (SIGINT) stopped the move between two steps: the session goes
  // on from there at a prompt; a --batch script ends (DebugPrompt).
  bool ctrl_c = false;
};

class DebugSession {
 public:
  // `recording`: the trace being replayed (its decisions are followed), or
  // nothing for `attach --interactive`. `trace_template` carries the
  // program, options and environment that save() writes.
  DebugSession(Session& session, std::optional<proto::Trace> recording, proto::Trace trace_template);
  ~DebugSession();

  // Launches the program and pauses at step 0. Throws UsageError when the
  // program cannot be controlled; a program that ends before its first
  // thread ends the session (returns Exited/Bug), and so does a stop
  // during start-up (Interrupted).
  StopInfo start();

  // ---- where we are ----
  uint64_t position() const;
  const std::vector<uint32_t>& schedule() const;
  const std::vector<shm::Event>& events() const;
  // One line per step, as in the bug report's interleaving.
  std::string describe_step(uint64_t step) const;
  bool following_recording() const;
  // The decision the recording makes at the current step, if any.
  std::optional<uint32_t> recorded_next() const;
  // Threads (and, under tso/pso, flush actors kFlushActorBase + t) that
  // can perform the next step; 0 when the execution has ended.
  uint64_t enabled() const;
  bool ended() const;
  // The bug the execution ended in (ended() and a bug).
  const ExecutionResult* bug() const;
  std::vector<ThreadView> threads();
  // Under tso/pso: "T1: [x] <- 1, [y] <- 2" per thread with buffered stores.
  std::vector<std::string> buffers();

  // ---- moving ----
  // `thread` performs its next `n` visible operations (default thread: the
  // recording's next decision, else the thread that performed the last
  // step if it can, else the lowest enabled one). `on_step` gets each
  // step's line. Stops early at a bug or the end; breakpoints do not stop a
  // step. A `thread` that exists but cannot go yet (blocked, waiting for
  // its turn) waits, when `others_may_run`: the other threads run (as
  // `continue` would choose them, breakpoints aside) until it can, and a
  // bug or the end on the way ends the step there; otherwise, and for a
  // thread that does not exist or has finished, UsageError with one line.
  StopInfo step(std::optional<uint32_t> thread, uint64_t n, const std::function<void(const std::string&)>& on_step,
                bool others_may_run = true);
  // Follows the recording (or, without one or past its end, keeps the last
  // thread while it can run, else the lowest enabled one) until a
  // breakpoint (before the operation), a watchpoint (after the step that
  // triggered it, StopInfo::thread the thread whose access it was), a bug,
  // the end, or the recording's end.
  StopInfo cont(const std::function<void(const std::string&)>& on_step);
  // Asked after each step of step() and cont() (beside ctrl's own SIGINT):
  // true stops the move there ("interrupted at step N", StopReason::Step).
  // The gdb server's check looks for gdb's interrupt byte.
  void set_interrupt_check(std::function<bool()> check);
  // Goes to step `target` of the current schedule (back or forward; not
  // past schedule().size() unless a recording continues it).
  StopInfo go_to(uint64_t target);
  StopInfo back(uint64_t n);

  // ---- breakpoints ----
  // Throws UsageError with one line when LOCATION names nothing.
  const Breakpoint& add_breakpoint(const std::string& location);
  const Breakpoint& add_watch(const std::string& target);
  // [address, address + size), as `print`'s address_of or gdb's Z2-Z4 give it.
  const Breakpoint& add_watch(uint64_t address, uint64_t size, Breakpoint::Access access, std::string spec);
  // Address breakpoints as gdb inserts them (Z0): matched by site or line.
  const Breakpoint& add_address_breakpoint(uint64_t address);
  bool remove_breakpoint(int number);
  void remove_address_breakpoint(uint64_t address);
  void clear_breakpoints();
  const std::vector<Breakpoint>& breakpoints() const;

  // ---- inspection (of the current step) ----
  pid_t pid() const;  // the paused execution's process
  bool read_memory(uint64_t addr, void* buffer, size_t size);
  std::optional<ThreadRegisters> registers(uint32_t thread);
  // Program frames of `thread`, innermost first (agent frames left out);
  // the innermost carries Backtracer::kExactIp when it is an exact address.
  std::vector<uint64_t> backtrace(uint32_t thread);
  // The thread pointer (fs base) of `thread`, for thread-local variables.
  uint64_t thread_pointer(uint32_t thread);
  Symbolizer& symbolizer();
  const std::string& program() const;
  // SIGINT and SIGTERM arrive on this descriptor while a client waits for
  // its user; take_signal() says which came (0: none).
  int signal_fd() const;
  int take_signal();

  // ---- checkpoints ----
  int checkpoint();  // of the current step; returns its number (1, 2, ...)
  std::vector<CheckpointInfo> checkpoints() const;
  StopInfo restart(int id);  // throws UsageError for an unknown id
  // Off: going back always re-runs from the start (--no-checkpoints).
  void set_checkpoints(bool enabled);

  // ---- results ----
  // A trace of the schedule so far (with the bug, if it ended in one) that
  // `ctrl replay` reproduces, written only as a new file (save_new_trace);
  // a file that cannot be written throws UsageError (the session goes on).
  void save(const std::string& path);
  // Runs `options` from the current step (the schedule so far is a fixed
  // prefix) as `ctrl attach` would from here; the session stays where it is.
  ExplorationReport explore(const ExploreOptions& options);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctrl
