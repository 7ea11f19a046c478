// The agent's scheduler: serialises the target's threads at visible
// operations and follows the controller's plan without asking it.
//
// Invariants:
//  * At most one controlled thread runs user code at a time: the one whose
//    index is `current_`. Every other controlled thread is parked on its own
//    futex word, at its pending visible operation.
//  * The thread that reaches a scheduling point decides who performs the next
//    step (decision k -> event k): the prefix of the plan first, then the tail
//    policy, always among the model's enabled threads. The chosen thread wakes,
//    performs its operation and logs it as event k before anyone decides again.
//  * The controller is never asked during an execution; the agent calls it
//    (SIGSTOP to itself, `attention` set) only when the execution ends in a way
//    the controller must look at: deadlock, assertion, divergence, bounds.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "ExecutionModel.h"
#include "FairYields.h"
#include "MemoryModel.h"
#include "MemorySnapshot.h"
#include "ParkContext.h"
#include "SavedContext.h"
#include "SharedRegion.h"
#include "TailChooser.h"
#include "TidWord.h"

namespace ctrl::agent {

// Index of the calling thread in the model, kNoThread for threads the agent
// does not control. Initial-exec TLS: the agent is preloaded.
extern thread_local uint32_t t_me __attribute__((tls_model("initial-exec")));
// Set while the agent itself runs code that may call interposed functions.
extern thread_local bool t_in_agent __attribute__((tls_model("initial-exec")));
extern int spin_pause, spin_yield;
// The program's stack pointer where the calling thread entered the agent
// for its next visible operation: the lowest stack byte the program may
// still read (below a site's red zone; a call's own stack pointer before
// the call). 0 when not known; Runtime::begin takes it and clears it.
extern thread_local uint64_t t_program_sp __attribute__((tls_model("initial-exec")));
// An interposer's call site, noting its caller's stack pointer on the way
// (the interposer's frame address + 16: its return address and saved rbp).
#define CTRL_CALLER_SITE()                                                                    \
  (::ctrl::agent::t_program_sp = reinterpret_cast<uint64_t>(__builtin_frame_address(0)) + 16, \
   reinterpret_cast<uint64_t>(__builtin_return_address(0)))

class Runtime {
 public:
  // Connected to a controller (false: the agent is inert and interposers
  // forward to libc).
  bool enabled = false;
  // Inside an execution forked from the checkpoint.
  bool active = false;
  // The execution decided to end (process exit): no more scheduling.
  bool ended = false;
  // A plain read logs its state fingerprint (shm::Header::read_states).
  bool read_states = false;
  bool checkpointed = false;
  int control_fd = -1;
  shm::View region;
  ExecutionModel model;

  // A controlled thread that may schedule or update the model.
  bool controlled() const { return enabled && !ended && t_me != kNoThread && !t_in_agent; }

  // Makes `op` the pending operation of the calling thread `me` and returns
  // once `me` is chosen to perform it (at once before the checkpoint).
  void begin(uint32_t me, const PendingOp& op) {
    take_turn(me, op);
    if (carriers_ && !runs_anywhere(op.kind)) go_home(me);
  }
  // A new thread waits for its first turn, then logs its ThreadStart.
  void first_turn(uint32_t me);
  // Appends the event of the step `me` just performed; checks it against the
  // expected signature when replaying.
  void log(uint32_t me, OpKind kind, uint64_t addr, uint64_t site, uint64_t read = 0, uint64_t written = 0,
           uint64_t aux = 0, uint32_t size = 0, MemOrder order = MemOrder::NotAtomic, RmwOp rmw = RmwOp::None,
           uint8_t flags = 0);
  // The calling thread has finished: hands the token on without waiting. The
  // thread then runs libc's exit path (TLS destructors, returning its malloc
  // cache to an arena) natively, so the thread it chose waits for the kernel
  // to clear the exiting thread's tid before it runs: heap addresses would
  // otherwise depend on timing and replays would diverge. A thread of the
  // pool (ThreadPool.h) does not exit: it gives `finish` (its destructors),
  // which runs uncontrolled before the token is handed on. True when it was
  // the last thread (the execution is complete).
  bool thread_exit(uint32_t me, uint64_t site, void (*finish)() = nullptr);
  // Finds where libc keeps a thread's tid in its descriptor (the word the
  // kernel clears at thread exit, TidWord.h); called in the main thread at
  // start-up. The offset is provisional until confirm_tid_word.
  static void find_tid_word();
  // Keeps the offset at which each of `n` other threads' descriptors (`pds`)
  // holds its tid; -1 when none does.
  static void confirm_tid_word(const char* const* pds, const int* tids, int n);
  // The process is about to exit with `status` (after the step is performed).
  void process_exit(uint32_t me, int status, uint64_t site);
  // The first thread creation: becomes the fork server; returns in a forked
  // execution (or never, in the server).
  void checkpoint(uint64_t site);
  // A completed execution is exiting: tells the controller at once, so the
  // next execution need not wait for this process to be torn down. From
  // here the process never touches the shared region again.
  void execution_finished();
  // Records the outcome and stops the thread for the controller. Never returns.
  // Async-signal-safe (no allocation): crash handlers call it.
  [[noreturn]] void end_execution(shm::Outcome outcome, uint32_t thread, uint64_t site, const char* message);
  // The execution's memory model (MemoryModel.h), taken from the plan at
  // its start: what loads return, what stores do, what drains, the extra
  // actors. SC until the first execution.
  MemoryModel* memory = &memory_model_for(shm::MemoryModel::SC);
  // A pinned runner's executions that reach kSpreadAfterSteps steps spread
  // their threads over the program's CPUs (spread). Called once, before the
  // checkpoint, when the controller allows it (RunExecution.spread).
  void allow_spread();
  // The Choice of the step about to be logged: the plan's within its prefix,
  // Default after it.
  shm::Choice choice() const { return step_ < region.header->prefix_len ? region.choices[step_] : shm::Choice{}; }
  uint64_t step() const { return step_; }
  // The threads that could have been chosen at the latest decision.
  uint64_t last_enabled() const { return last_enabled_; }

  // A thread of the pool (ThreadPool.h) given to the new thread `t`, woken
  // only when `t` is first chosen. Not while stepping or when a live
  // checkpoint may be taken: those wait for every thread to park.
  // User-level hand-offs (below): `me` continues on its own kernel thread
  // (a no-op when it runs there, or without carriers).
  void go_home(uint32_t me);
  // A bug ends the execution in `me`: it and every carried thread go home,
  // where the controller unwinds each thread's stack.
  void pose_carried(uint32_t me);
  static constexpr uint32_t kMaxCarriers = 9;  // the main thread's and the pool's (ThreadPool.h)
  // The carriers' own stacks: outside the rollback's snapshot, which must
  // not touch them: the pool's idle kernel threads wait on them across a
  // rollback (carrier_idle), and what else an execution leaves there is dead.
  static MemoryRange carrier_stacks_memory();
  static constexpr uint8_t kNoCarrier = 0xff;
  // Carrier `c` (a pool slot's kernel thread, ThreadPool.h) starts its
  // slot's thread where it idles (thread_pool::wake).
  void start_at_home(uint32_t c);
  // A carrier with nothing to run idles here on its home_ word, on a stack
  // of its own, until its own thread is to run there again (kHomeResume),
  // its slot's next thread starts there (kHomeStart) or the execution ends
  // it (kHomeEnd). (The thread pointer may still be that of a thread it
  // ran: no thread-local storage, no errno.)
  [[noreturn]] void carrier_idle(uint32_t c);
  bool may_defer_start() const { return !stepping_ && checkpoint_at_ == UINT64_MAX; }
  void defer_start(uint32_t t, uint32_t slot) {
    unstarted_ |= uint64_t(1) << t;
    unstarted_slot_[t] = uint8_t(slot);
  }
  // Refreshes the shared slot of `t` (status, pending operation) for the controller.
  void publish(uint32_t t);
  // Also its static TLS span (ThreadLocalStorage.h): called by thread t
  // itself. (`tid`: the calling thread's, when known.)
  void publish_tid(uint32_t t, pid_t tid = 0);

  // A parked thread's word: waiting (spinning), sleeping (in FUTEX_WAIT),
  // or go (its turn).
  // kExit: the execution is over and is being rolled back in place; the
  // thread ends itself (Rollback.h).
  // kRollBack: another thread ended the execution (blocked, cut): the
  // runner's main thread, parked, puts the process back (Rollback.h).
  // kPose: a bug ended the execution; a carried thread waits at home for
  // the controller to look at (pose_carried).
  static constexpr uint32_t kWaiting = 0, kSleeping = 1, kGo = 2, kExit = 3, kRollBack = 4, kPose = 5;
  struct alignas(64) Park {
    std::atomic<uint32_t> go{kWaiting};
    // Live checkpoints (LiveCheckpoint.h), in the line the thread writes
    // anyway: while it sleeps in wait_turn, its context record (on its own
    // stack, valid while `go` says kSleeping); its thread pointer and
    // alternate signal stack, from its first turn.
    ParkContext* context = nullptr;
    uint64_t fs_base = 0;
    stack_t altstack{};
  };

  // ---- live checkpoints (LiveCheckpoint.h) ----
  // `t` sleeps in its futex wait, or is about to (its word says so).
  bool parked_asleep(uint32_t t) const { return park_[t].go.load(std::memory_order_acquire) == kSleeping; }
  Park& park(uint32_t t) { return park_[t]; }
  static int tid_offset() { return tid_offset_; }

 private:
  // Picks who performs the next step; the memory model's extra actors'
  // steps (store-buffer flushes) it performs itself.
  uint32_t decide(uint32_t me);
  // begin() but for going home after the turn (user-level hand-offs).
  void take_turn(uint32_t me, const PendingOp& op);
  uint32_t choose(uint32_t me);
  void actor_step(uint32_t me, uint32_t actor);
  // DPOR: sleepers whose pending operation conflicts with `e` wake up.
  void wake_sleepers(const shm::Event& e);
  // The execution ends with threads that never ran their pending operation
  // (a process exit, a cut): records those operations (Header::pending).
  void record_pending(uint32_t exiting);
  // Spin detection from the memory effect of an event.
  void note_memory(uint32_t me, const shm::Event& e);
  // Stepping: publishes the state, tells the controller, and waits for its
  // command (SharedRegion.h, TailPolicy::Ask). Returns when the plan holds
  // the next decision, or stepping is over (Finish).
  void ask(uint32_t me, uint64_t mask);
  void hand_to(uint32_t next);
  // ---- user-level hand-offs (HandOff.cpp) ----
  // A thread that parks at a step saves its context (carried_) and its
  // kernel thread, now a carrier, jumps into the next thread's saved context
  // (wrfsbase sets the thread pointer) instead of waking that thread's own
  // kernel thread: a hand-off without the kernel. When the next thread is
  // not carried (it waits at its own kernel thread, or is not started) it
  // is woken as before and the carrier, off the parked thread's stack,
  // idles until its own thread is to run again (home_).
  // Carriers are the kernel threads of the runner's main thread (0) and of
  // the pool's slots (1 + slot): a slot serves one thread per execution, so
  // a carrier is the home of at most one thread of it. Other threads (past
  // the pool's slots) always wait on their own kernel thread.
  // Invariants while carriers_ holds:
  //  * Every started, unfinished thread with a home carrier (home_of_) is
  //    running on exactly one carrier (carrier_of_), or carried (its
  //    context in uctx_, no kernel thread on its stack), or waits in
  //    wait_turn on its home carrier. Threads without one (not the pool's)
  //    always wait in wait_turn.
  //  * Whatever needs the kernel to see the thread itself (a real wait
  //    while others run, a signal, its signal mask, the end of a thread
  //    outside the pool, the process's end, the rollback) happens at home
  //    (go_home first).
  //  * A carrier that is not running idles on its home_ word, on its own
  //    stack; the home carrier of a carried thread always idles, so waking
  //    it (wake_carried) resumes the thread there.
  //  * A pool slot's kernel thread whose thread ended, or has not started in
  //    this execution, idles the same way (ThreadPool.h): a carrier may
  //    start the slot's next thread itself (run_here), and a slot's thread
  //    may end on any carrier (leave_ended).
  // carriers_ is decided per execution (start_execution): off while
  // stepping, around a live checkpoint, with int3 sites or program signal
  // handlers (a switch inside a signal handler would move the kernel's
  // signal state to another thread), or without FSGSBASE.
  bool carriers_allowed() const;
  // Kinds of step after which a thread may run on any carrier.
  static bool runs_anywhere(OpKind kind);
  void switch_turn(uint32_t me, uint32_t next);
  // Resumes the carried thread `t` on its home carrier, its park word set to
  // `word` (kGo, kRollBack).
  void wake_carried(uint32_t t, uint32_t word);
  // What a thread does when its turn comes (its park word), after any wait.
  void after_turn(uint32_t me);
  [[noreturn]] static void carrier_leave(void* arg);
  // `next` can take the turn on this kernel thread without the kernel: it
  // is carried and its step runs anywhere, or it is a pool slot's thread
  // not started yet whose slot allows it (thread_pool::can_start_away).
  bool runs_here(uint32_t next) const;
  // Then runs it on carrier `c`; `now_carried`: the thread (bit) whose
  // context was just saved.
  [[noreturn]] void run_here(uint32_t next, uint32_t c, uint64_t now_carried);
  // A pool slot's thread `me` ended on carrier_of_[me] and `next` has the
  // turn: run here, or woken, while this carrier idles.
  [[noreturn]] void leave_ended(uint32_t me, uint32_t next);
  [[noreturn]] static void ended_idle(void* arg);
  // kHomeIdle must be 0: the words are restored with the agent's memory by a
  // rollback while idle carriers wait on them (the snapshot is armed before
  // any execution, with every word 0).
  static constexpr uint32_t kHomeIdle = 0, kHomeResume = 1, kHomeEnd = 2, kHomeStart = 3;
  bool carriers_ = false;
  uint64_t carried_ = 0;
  uint8_t home_of_[shm::kMaxThreads] = {};
  uint8_t carrier_of_[shm::kMaxThreads] = {};
  std::atomic<uint32_t> home_[kMaxCarriers] = {};
  uint8_t resume_[kMaxCarriers] = {};
  uint64_t carrier_fs_[kMaxCarriers] = {};
  int32_t carrier_tid_[kMaxCarriers] = {};
  SavedContext uctx_[shm::kMaxThreads] = {};
  // A long execution: its threads may use every CPU (rollback::spread_threads)
  // and wait by yielding spin_yield times before they sleep.
  void spread();
  // `pair`: `me` just handed over to the only other enabled thread, which
  // can hand back to no one but `me` (see spin_yield).
  void wait_turn(uint32_t me, bool pair = false);
  // `resumed`: in a runner rolled back after an execution (Rollback.h), whose
  // kernel state the previous start set already and the rollback kept.
  void start_execution(pid_t fork_server, bool resumed = false);
  // Until the controller released `ticket` (Header::released).
  void wait_for_release(uint32_t ticket);
  // Executions' stdout and stderr go to /dev/null unless shown (or a file
  // the program chose before its threads).
  void discard_output();
  // Rolling back in place: every thread of the execution but `me` ends
  // (parked ones on their own, at kExit), and the kernel is done with each
  // (its tid word cleared); the pool's threads wait to be resumed
  // (ThreadPool.h). False when that cannot be known.
  bool end_other_threads(uint32_t me);
  // An execution that ended without a bug (blocked, cut, diverged) in a
  // runner: tells the controller (Attention.rolled_back) and puts the
  // process back from its main thread. False when it cannot.
  bool roll_back_after_attention(uint32_t me);
  // Thread stacks for the executions' threads, kept in libc's stack cache
  // from the checkpoint on: a thread created in an execution then maps and
  // faults in no new stack (Rollback.h), in every mode alike.
  void prime_thread_stacks();
  // The frames a crash handler or a paused thread sends (they carry the pid).
  void build_frames();
  // Takes a live checkpoint at decision step_ (the deciding thread `me`);
  // in a process restored from it, takes up the plan the controller wrote
  // for the restore and returns true.
  bool take_checkpoint(uint32_t me);
  [[noreturn]] void deadlock(uint32_t me, uint64_t site);
  [[noreturn]] void spin_hang(uint32_t t);
  [[noreturn]] void diverged(uint32_t me, uint64_t site, const char* why);

  Park park_[shm::kMaxThreads];
  // Executions run detached from ptrace; they call the controller with this
  // frame (an Attention message, serialised once so a crash handler can send
  // it without allocating).
  char attention_frame_[64];
  size_t attention_len_ = 0;
  char attention_rolled_back_frame_[64];
  size_t attention_rolled_back_len_ = 0;
  char paused_frame_[64];
  size_t paused_len_ = 0;
  bool stepping_ = false;  // TailPolicy::Ask, until the controller says Finish
  uint32_t current_ = 0;
  uint32_t last_ = 0;
  uint64_t step_ = 0;
  uint64_t rng_ = 0;
  // The plan's thread is alone to the end: every other thread ended and the
  // plan's remaining decisions are all its own. What it then does differently
  // from the trace (a value ctrl does not control, such as its kernel thread
  // id, formatted) is no divergence: nothing is left to schedule, so the
  // rest of the plan is neither checked nor forced (the tail runs it).
  bool alone_ = false;
  bool alone_to_the_end(uint32_t me) const;
  PctChooser pct_;  // TailPolicy::Pct: this execution's priorities
  PosChooser pos_;  // TailPolicy::Pos: the next operations' priorities
  bool pos_on_ = false;
  // TailPolicy::Pos: after `e`, its thread's next operation and those that
  // race with it get new priorities.
  void pos_after(const shm::Event& e);
  uint64_t last_enabled_ = 0;        // enabled set of the latest decision, logged with its event
  uint64_t spread_at_ = UINT64_MAX;  // the step at which spread() runs (allow_spread)
  // The runner's yields at a pair hand-off (spin_yield) pay only while
  // the turn comes back within it, quickly: on a busy machine the yield
  // gives the CPU to another process's task for its whole time slice, where
  // a thread woken from sleep would have run first. After a yield that did
  // not pay, the next pair hand-offs sleep at once: 64 of them, twice as
  // many after each further failure; a yield that paid halves that number.
  // (Runtime is program memory: each execution starts from none.)
  uint32_t pair_yield_skip_ = 0;
  uint32_t pair_yield_backoff_ = 0;
  // The real clock (ns) read by the latest thread that handed over at a pair
  // hand-off, just before its yields: the thread it handed to ends its own
  // wait at about that time, so it takes it as its end instead of a clock
  // system call of its own (one read per pair hand-off instead of three). A
  // value not after that thread's own start was written before its wait
  // began (the other thread did not time its hand-over): it reads the clock.
  std::atomic<int64_t> pair_clock_ns_{0};
  // Pair hand-offs left before the next timed one. The clock is a system
  // call here (VirtualVdso.h): only one pair wait in kPairTimedEvery
  // (HandOff.cpp) is timed and decides the back-off; the others yield as
  // many times as a timed one while no back-off is left, else once, then
  // sleep. A slow yield is still found within that many waits.
  uint32_t pair_untimed_ = 0;
  uint64_t sleep_ = 0;       // DPOR sleep set (see Header::sleep_mask)
  uint8_t flush_owner_ = 0;  // the owner logged with an extra actor's event
  // Threads whose latest step began a timed wait (a real one sleeps until
  // its deadline, the others running meanwhile) or timed out. Under the
  // sticky tail policy they give the turn to another awake thread: ctrl
  // explores a time-out as immediate, so a thread polling with timed waits
  // (pbzip2's writer) would otherwise take its mutex back at once, again and
  // again, while the thread that waits for that mutex stays parked, until
  // --max-steps.
  uint64_t yielding_ = 0;
  // Threads of the pool not woken yet (defer_start), and their slots.
  uint64_t unstarted_ = 0;
  // Pool threads at their end that may end on any carrier (thread_exit):
  // their ThreadExit runs anywhere, unlike a thread's that really exits.
  uint64_t ends_anywhere_ = 0;
  uint8_t unstarted_slot_[shm::kMaxThreads] = {};
  // Wakes the unstarted thread `t`.
  void start_deferred(uint32_t t);
  // Fair scheduling of yields (analyses/FairYields.h): fed every decision's
  // enabled set and every logged step; the tail chooses among the threads
  // it allows.
  FairYields fair_;
  bool finished_ = false;  // execution_finished told the controller
  bool in_place_ = false;  // a runner: executions are rolled back (Rollback.h)
  pid_t fork_server_ = 0;  // the execution's parent
  // Header::checkpoint_at of the plan: take a live checkpoint there.
  uint64_t checkpoint_at_ = UINT64_MAX;
  // The tid word of a thread that handed the token on as it exited; the
  // thread that received the token waits for it to become 0.
  int* exiting_tid_ = nullptr;
  // Offset of the tid in libc's thread descriptor, -1 when unknown.
  static inline int tid_offset_ = -1;
  static inline tid_word::Candidates tid_candidates_{};
};

extern Runtime& rt;  // never destroyed (Runtime.cpp)

// Scoped t_in_agent.
struct AgentScope {
  bool saved;
  AgentScope() : saved(t_in_agent) { t_in_agent = true; }
  ~AgentScope() { t_in_agent = saved; }
};

}  // namespace ctrl::agent
