// One target program under control: launched once, run to its checkpoint
// (the fork server at its first thread creation), then asked for one
// execution after another. The session supervises each execution: ptrace
// stops, agent requests, hangs. It never sits on the target's hot path: the
// agent schedules alone and the session only waits.
// Its members are defined by concept: Session.cpp (its life, run, resume,
// the channel), SessionStartup.cpp, ForkServerLifecycle.cpp,
// RunnerPlacement.cpp, SessionCheckpoints.cpp, ExecutionSupervision.cpp
// (with inspect) and ExecutionOutcomes.cpp.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "session/ExecutionResult.h"
#include "cli/FailOnExit.h"
#include "session/SharedMemory.h"
#include "Strategy.h"
#include "session/Tracer.h"
#include "control.pb.h"

namespace ctrl {

class Backtracer;
class Symbolizer;

struct SessionConfig {
  std::string program;              // absolute path
  std::vector<std::string> args;    // argv[1..]
  std::vector<std::string> env;     // the target's environment, without ctrl's additions
  std::string cwd;                  // empty: ctrl's
  std::string agent;                // path of libctrl-agent.so
  uint64_t max_steps = 100000;
  double hang_timeout = 5.0;        // seconds without a visible operation
  bool show_output = false;
  int sites_fd = -1;                // instruction site table (Instrumentation), -1: none
  shm::MemoryModel model = shm::MemoryModel::SC;
  // Exit statuses that make an execution a bug of kind exit-status
  // (--fail-on-exit, FailOnExit.h); none by default.
  FailExitStatuses fail_on_exit;
  // Executions run in place in one runner process, rolled back between
  // them (agent/Rollback.h), instead of a forked process each.
  bool in_place = true;
  // Thread changes within a kernel thread where the agent can
  // (agent/Runtime.h, user-level hand-offs); false: --kernel-handoffs.
  bool user_handoffs = true;
  // The CPU of the runner and of the session's thread: -2 the one the
  // thread runs on when the checkpoint is reached, -1 none.
  int runner_cpu = -2;
  // When the session ends after an execution that did not run to its end
  // (stopped by the time limit or a signal, cut by --max-steps, abandoned
  // as blocked), its half-done file changes are undone: the files are put
  // back as at the checkpoint (Session::files_left). Off for -j helpers,
  // whose last executions are speculative (the explorer's session decides).
  bool files_back_after_half_way = true;
  // The runner's long executions may spread their threads over the
  // program's CPUs (RunExecution.spread): no other session of this ctrl
  // runs executions meanwhile (-j 1).
  bool spread = true;
  // The origin of the program's virtual clocks (agent/VirtualClock.h), in
  // nanoseconds of CLOCK_REALTIME and CLOCK_MONOTONIC: when ctrl started
  // (attach), or the trace's (replay), so that every execution and every
  // replay reads the same times. 0: the launch's own.
  int64_t clock_realtime_ns = 0;
  int64_t clock_monotonic_ns = 0;
  // --visible shared (agent/OwnMemory.h): a thread's accesses to its own
  // stack and static TLS outside `shared` (SharedSet.h) are not steps.
  bool own_memory = false;
  std::vector<shm::Header::Range> shared;
};

// How executions got their process (in place: agent/Rollback.h).
struct RunnerStats {
  uint64_t rolled_back = 0;    // executions that left their runner at the checkpoint again
  uint64_t runners = 0;        // processes forked for executions
  std::map<std::string, uint64_t> refusals;  // why a runner could not roll back, and how often
};

class Session {
 public:
  explicit Session(SessionConfig config);
  ~Session();

  // Launches the target and runs it to its checkpoint. Returns the result
  // when the program ended before it created any thread (its one execution).
  std::optional<ExecutionResult> start();
  // Forks one execution from the checkpoint and supervises it. `expected`:
  // the signatures to check each step against (replay), or empty.
  ExecutionResult run(const ExecutionPlan& plan, uint64_t index, const std::vector<shm::Signature>& expected = {});

  // ---- stepping (DebugSession) ----
  // run() with a plan whose policy is TailPolicy::Ask returns End::Paused
  // when the execution waits at a decision; the execution stays alive.
  // resume() sends `command` (the caller wrote the plan fields it changed
  // into region()) and supervises the execution again, to its next pause
  // or its end.
  ExecutionResult resume(shm::StepCommand command);
  // Kills a paused execution.
  void abandon();
  SharedMemory& region() { return region_; }
  // c11/rc11: whether the program initialised addr in a way no event
  // shows: before the checkpoint (shm::Header's initialised table), or as
  // the static TLS of a thread of the last execution (ThreadSlot::tls_lo).
  bool initialised_unseen(uint64_t addr) const;
  pid_t execution_pid() const { return current_pid_; }
  // Stops every thread of the paused execution under ptrace, for registers
  // and backtraces; resume() and abandon() let them go again.
  void inspect();
  Backtracer& backtracer() { return *backtracer_; }
  // SIGINT/SIGTERM while a prompt waits: the descriptor they arrive on, and
  // the signal that came (0: none), forgotten once taken.
  int signal_fd() const { return tracer_.signal_fd(); }
  int take_signal() {
    tracer_.poll_signals();
    int sig = tracer_.interrupted_by();
    tracer_.clear_interrupted();
    return sig;
  }

  // ---- live checkpoints (LiveCheckpoints, agent/LiveCheckpoint.h) ----
  // Takes a checkpoint of the paused execution at its current step; it
  // stays paused there. Returns the checkpoint's slot in the region's
  // table, or -1 with the agent's reason in `error`.
  int take_checkpoint(std::string& error);
  // Abandons the paused execution, if any, and continues a new process from
  // the checkpoint in `slot` (taken in the paused execution or at a plan's
  // checkpoint_at), with `plan` as its plan from there (as run() writes it;
  // its prefix should hold the decisions before the checkpoint's step).
  // `events`: the events before the checkpoint's step, written back into
  // the region (other executions may have overwritten them). Supervises
  // the new process like run(): to a pause (End::Paused, execution_pid() is
  // the new process) or to its end.
  ExecutionResult restore_checkpoint(int slot, const ExecutionPlan& plan, uint64_t index,
                                     const std::vector<shm::Event>& events,
                                     const std::vector<shm::Signature>& expected = {});
  // The same with the events as an array of `n`.
  ExecutionResult restore_checkpoint(int slot, const ExecutionPlan& plan, uint64_t index, const shm::Event* events,
                                     uint64_t n, const std::vector<shm::Signature>& expected = {});
  // Paused results carry no events when off (ExecutionResult::steps says
  // how many the region holds): a stepping session reads only the new ones.
  void set_copy_paused_events(bool copy) { copy_paused_events_ = copy; }
  // On: SIGINT and SIGTERM do not end an execution under supervision; the
  // stepping session takes them between steps (take_signal).
  void set_defer_interrupts(bool defer) { defer_interrupts_ = defer; }
  // The checkpoint process of `slot` exits; the slot is free once it has.
  void drop_checkpoint(int slot);

  Symbolizer& symbolizer();
  const SessionConfig& config() const { return config_; }
  // The own-memory rule and shared set from the next execution on (between
  // explorations only).
  void set_shared(const std::vector<shm::Header::Range>& shared, bool own_memory);
  const RunnerStats& runner_stats() const { return runner_stats_; }
  // The CPU this session's thread and runner share (-1: not pinned).
  int runner_cpu() const { return runner_cpu_; }
  // The CPUs ctrl may use, as they were before any session pinned its
  // thread (a thread created later inherits a pin).
  static const std::vector<int>& usable_cpus();
  bool interrupted() const { return tracer_.interrupted(); }
  // Ask the next supervision to stop as soon as possible (time limit).
  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  // Ctrl-C, SIGTERM or the deadline (reads the signals that arrived).
  bool should_stop();
  // Why should_stop() said so: "SIGINT", "SIGTERM" or "the time limit".
  std::string stop_reason() const;

  // What the files are left as when the session ends (stop_fork_server):
  // as the last execution left them when it ran to its end without a bug,
  // else put back as at the checkpoint (a replay must start from those, and
  // an execution stopped half-way leaves half-written files).
  struct FilesLeft {
    bool checkpoint = false;  // put back as at the checkpoint
    std::string why;          // when put back: "a bug was found", or how the last execution ended
    std::string half_way;     // how the last execution ended short of its end ("was cut by ..."), or empty
    uint64_t execution = 0;   // the last execution (its index)
    // The program may have changed a file in an execution: one changed by
    // path (FileJournal), or a file open for writing at the checkpoint.
    bool touched = false;
    bool started = false;  // an execution ran from the checkpoint (none: there is no checkpoint)
    bool stopped = false;  // the last execution was stopped from outside (time limit, signal)
  };
  FilesLeft files_left() const;

 private:
  // ---- start-up (SessionStartup.cpp) ----
  // Before the checkpoint the target is traced and its stops tell everything.
  ExecutionResult supervise_startup(bool& checkpointed);
  void handle_startup_message(const proto::ControlMessage& m, bool& checkpointed);
  // Before the checkpoint, when the traced process ends: another process
  // of the program (forked before its first thread) becomes the one
  // followed. False when none is left.
  bool follow_forked_child();

  // ---- the fork server (ForkServerLifecycle.cpp) ----
  // The fork server is the process that said CheckpointReady.
  void adopt_fork_server(pid_t pid);
  void release_fork_server();
  // Asks the fork server for a new runner of execution `index`.
  void send_run(uint64_t index);
  // At the end: lets the fork server finish the file journal, then exit.
  void stop_fork_server();

  // ---- CPU placement (RunnerPlacement.cpp) ----
  void place_runner();
  // Before a launch: this thread back on every usable CPU (a session's
  // place_runner pinned it), so the program's start-up sees the affinity
  // ctrl had.
  void unpin_for_launch();

  // ---- supervision (ExecutionSupervision.cpp) ----
  // Executions run untraced (a signal to a traced thread would cost a ptrace
  // stop, and instruction sites trap often): the agent reports over the
  // channel, the fork server reports the exit, and the session seizes the
  // execution's threads only to inspect a bug.
  ExecutionResult supervise_execution();
  void handle_ptrace_stop(const Stop& s);
  void resume_other(const Stop& s);
  bool is_execution_thread(pid_t tid) const;
  void seize_execution();
  // SIGKILL to the current execution and wait for its end (the fork server's
  // ExecutionEnded), at most kKillWaitMs; then an InternalError.
  void kill_execution();
  static constexpr int kKillWaitMs = 10000;
  // Detaches the threads inspect() seized (they go on waiting where they were).
  void release_inspection();

  // ---- outcomes (ExecutionOutcomes.cpp) ----
  ExecutionResult outcome_from_agent(pid_t tid);
  ExecutionResult finish_with_bug(ExecutionResult r, pid_t stopped_tid);
  // Copies the execution's events into `r` and learns from them the names
  // of the heap blocks its code reached through pointers (PointerNames.h),
  // so that messages and thread states say `p->work`, not `heap+0x16fa8`.
  void name_heap_blocks(ExecutionResult& r);
  // A hang of `thread` (HangWatch's message), with every thread's backtrace.
  ExecutionResult hang_result(const std::string& message, uint32_t thread);
  ExecutionResult interrupted_result();
  // Copies the ended execution's `n` events out of the shared region into
  // `r`. 2,000,000 events are 128 MB of fresh pages: 32,000 page faults
  // took a second on a loaded machine where faults are slow (a stop asked
  // meanwhile waited for them), so a long execution's copy asks for huge
  // pages (64 faults instead).
  void take_events(ExecutionResult& r, uint64_t n);
  // Rust's exit status after a panic that reached main (or a thread's
  // join().unwrap()).
  static constexpr int kRustPanicStatus = 101;
  // An execution that ended by exiting (`r`: its events and exit status):
  // a bug of kind panic when a Rust panic ended it (the agent saw its
  // message, PanicWatch.h, and the process exited with Rust's status 101),
  // of kind exit-status when --fail-on-exit lists its status; else as it is.
  void judge_exit(ExecutionResult& r);
  // The Rust panic the agent saw in this execution, as "thread 'NAME'
  // panicked at FILE:L:C: MESSAGE" (empty: none).
  std::string panic_message() const;
  void collect_backtraces(ExecutionResult& r, pid_t stopped_tid);
  uint32_t thread_index(pid_t tid) const;
  std::string thread_state(uint32_t t) const;
  // Records how the execution that just returned from supervision ended,
  // for files_left.
  void note_end(const ExecutionResult& r);
  // The unfinished threads' pending operations, when the execution ended by
  // a process exit or was cut.
  static void take_pending(const shm::Header& h, ExecutionResult& r);
  // The sharings of own memory the execution found (ExecutionResult::discovered).
  void take_discovered(ExecutionResult& r) const;

  // ---- the control channel (Session.cpp) ----
  // Reads one message; returns it when there was one. The fork server's
  // ExecutionEnded for any of its children (an execution, a spare, a runner
  // between executions, a live checkpoint) killed by a SIGKILL ctrl did not
  // send throws TargetLost, whoever reads it: a spare or idle runner lost
  // unseen was later waited on for ever. `known_ready`: the caller just saw
  // the channel readable (Tracer::also_fd_ready), so no poll first.
  std::optional<proto::ControlMessage> read_message(bool known_ready = false);
  // The name of the fork server's child `pid` in TargetLost's line.
  std::string process_name(pid_t pid) const;

  SessionConfig config_;
  Tracer tracer_;
  SharedMemory region_;
  std::unique_ptr<Backtracer> backtracer_;
  std::unique_ptr<Symbolizer> symbolizer_;
  int control_fd_ = -1;
  pid_t template_pid_ = 0;  // the launched process, later the fork server
  pid_t current_pid_ = 0;   // the process of the running execution
  // Processes ctrl sent SIGKILL, until the fork server says they ended.
  std::set<pid_t> killed_here_;
  bool hello_ = false;
  bool adopted_fork_server_ = false;  // the fork server is a child of the launched process
  bool found_bug_ = false;  // the fork server puts the checkpoint's files back at the end
  // How the last execution ended, when not at its end (files_left); empty
  // when it ran to its end or none ran.
  std::string half_way_;
  bool stopped_half_way_ = false;  // by the time limit or a signal
  bool ran_execution_ = false;
  bool traced_execution_ = false;  // current_pid_'s threads are seized (startup, or a bug)
  bool paused_ = false;            // current_pid_ waits at a decision (stepping)
  bool copy_paused_events_ = true;
  bool defer_interrupts_ = false;
  std::vector<pid_t> inspected_;   // threads inspect() stopped
  bool ended_ = false;             // current_pid_ is gone
  int end_status_ = 0;
  uint64_t execution_ = 0;
  // Executions forked in advance (ticket, pid), oldest first; ticket_ is the
  // one released for the current execution.
  std::deque<std::pair<uint32_t, pid_t>> spares_;
  uint32_t ticket_ = 0;
  // In place: the runner that rolled back after the last execution and
  // waits for the next ticket (0: the next execution needs a new one).
  pid_t runner_pid_ = 0;
  bool reused_runner_ = false;  // the current execution runs in runner_pid_
  bool attention_rolled_back_ = false;  // the last Attention: the runner rolls back
  // The CPU the runner and this thread share (-1: not pinned).
  int runner_cpu_ = -1;
  RunnerStats runner_stats_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

}  // namespace ctrl
