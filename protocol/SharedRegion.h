// The shared-memory region between the controller and the agent.
//
// The controller creates it (a memfd), sizes it for `capacity` steps and hands
// the descriptor to the agent, which maps it MAP_SHARED. Every execution forked
// by the agent's fork server therefore sees the same region.
//
// Ownership, which is what keeps this lock-free:
//  * Plan fields are written by the controller only while no execution runs
//    (between the end of one execution and the RunExecution message of the
//    next), and read by the agent.
//  * Live fields and the event log are written by the agent only, by the one
//    target thread that holds the scheduling token; the controller reads them
//    while the target is stopped or dead, or polls `steps` (atomic) to see
//    progress.
// Layout: Header, then uint32 prefix[capacity] (decisions to replay), then
// Choice choices[capacity] (what each decision does besides choosing a
// thread, under --model c11/rc11), then Signature expected[capacity] (the
// first checked_steps), then Event events[capacity].
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "Operation.h"

namespace ctrl::shm {

inline constexpr uint32_t kMagic = 0x4c525443;  // "CTRL"
inline constexpr uint32_t kVersion = 15;
inline constexpr uint32_t kMaxThreads = 64;
// Under x86-TSO each thread t has a flush actor, scheduled as thread
// kFlushActorBase + t; so at most kFlushActorBase threads there.
inline constexpr uint32_t kFlushActorBase = 32;

// C11 and RC11 (issue 11): atomics whose order ctrl sees (libatomic calls)
// follow the plan's Choice for what a load reads and whether a store becomes
// the location's newest value (below); everything else runs as under SC.
enum class MemoryModel : uint32_t { SC = 0, TSO = 1, PSO = 2, C11 = 3, RC11 = 4, RA = 5 };
// "sc", "tso", "pso", "c11", "rc11", "ra" (as on the command line and in traces);
// SC otherwise.
inline MemoryModel memory_model_named(const std::string& name) {
  if (name == "tso") return MemoryModel::TSO;
  if (name == "pso") return MemoryModel::PSO;
  if (name == "c11") return MemoryModel::C11;
  if (name == "rc11") return MemoryModel::RC11;
  if (name == "ra") return MemoryModel::RA;
  return MemoryModel::SC;
}

// What a decision does besides choosing the thread, under C11/RC11, for the
// atomic operation (AtomicLoad, AtomicStore, AtomicRmw, AtomicCas) the chosen
// thread performs at that step. Written by the controller with the prefix.
//  * Default: a load, or the read of a read-modify-write, reads memory (which
//    always holds the location's modification-order-last store); a store, or
//    a successful read-modify-write's write, becomes mo-last (writes memory).
//  * ReadFrom: the read returns `value` (the first `size` bytes of it), the
//    value of the store performed at step `from` (kFromInit: the location's
//    value before any store of this execution). The agent trusts it.
//  * Promise (c11 only): the read returns `value`, promised by a store that
//    thread `from` has not performed yet; the controller checks afterwards
//    that one did, else the execution is infeasible.
//  * kNotMoLast: this step's store (or successful RMW's write) is placed
//    before a store already performed in modification order, so memory keeps
//    the newer value: the agent computes and logs the value but does not
//    write it. A RMW's new value is computed from the value it read.
// Every other kind of operation ignores its Choice.
enum class ChoiceKind : uint8_t { Default = 0, ReadFrom = 1, Promise = 2 };
enum ChoiceFlag : uint8_t { kNotMoLast = 1 };
inline constexpr uint32_t kFromInit = UINT32_MAX;
struct Choice {
  ChoiceKind kind;
  uint8_t flags;  // ChoiceFlag bits
  uint16_t pad;
  uint32_t from;   // ReadFrom: the step of the store read; Promise: the thread promised
  uint64_t value;  // ReadFrom, Promise: the value the read returns
};
static_assert(sizeof(Choice) == 16);
inline constexpr uint32_t kMessageSize = 1024;
inline constexpr uint32_t kPanicTextSize = 512;
// TailPolicy::Pct: the largest bug depth (--pct-depth), so at most
// kMaxPctDepth - 1 priority-change points per execution.
inline constexpr uint32_t kMaxPctDepth = 16;

// What the agent does once the prefix of decisions is used up.
enum class TailPolicy : uint32_t {
  Random = 0,      // uniform among enabled threads, from `seed`
  RoundRobin = 1,  // next enabled thread after the last one chosen
  Sticky = 2,      // keep the current thread while it is enabled, else lowest
  // Stepping: the deciding thread follows prefix[] while step < pause_at,
  // then asks the controller (Header::asking/reply) and waits for it.
  Ask = 3,
  // Probabilistic concurrency testing (TailChooser.h's PctChooser): the
  // highest-priority enabled thread, priorities from `seed`, lowered at the
  // steps pct_change[] (Header::pct_depth, pct_change).
  Pct = 4,
  // Partial order sampling (TailChooser.h's PosChooser): the enabled thread
  // whose next operation has the highest random priority; an operation that
  // races with the one just performed gets a new priority.
  Pos = 5,
};

// What the controller asks of an execution paused at a decision
// (TailPolicy::Ask), written into Header::command before raising `reply`.
enum class StepCommand : uint32_t {
  None = 0,
  // Go on: the controller may have extended prefix[]/prefix_len and moved
  // pause_at; the agent re-reads them and decides again (asking again when
  // the prefix gives no decision or step == pause_at).
  Go = 1,
  // Stop asking: decide by the sticky policy from here to the end.
  Finish = 2,
  // Take a live checkpoint of the paused execution (CheckpointSlot below),
  // write its slot into Header::checkpoint_result, and pause again.
  Checkpoint = 3,
};

// ---- live checkpoints (agent/LiveCheckpoint.h) ----
// A checkpoint is a process parked in the middle of an execution: a copy of
// its deciding thread (the others are recreated from their saved contexts
// when it is restored). Each lives in a slot of the table below.
inline constexpr uint32_t kMaxCheckpoints = 64;
inline constexpr uint32_t kMaxInitialised = 1024;
// Own memory (agent/OwnMemory.h): the shared set's ranges a plan may hold,
// and the new sharings one execution reports.
inline constexpr uint32_t kMaxShared = 1024;
inline constexpr uint32_t kMaxDiscovered = 64;
// Own memory is tracked in granules of this many bytes (a shared range is
// a run of whole granules).
inline constexpr uint64_t kOwnGranule = 64;
enum class CheckpointCommand : uint32_t {
  None = 0,
  // Fork a live execution from the checkpoint (its pid comes back in
  // CheckpointSlot::restored_pid); the checkpoint stays.
  Restore = 1,
  Drop = 2,  // the checkpoint process exits; the slot becomes free
};
enum class CheckpointState : uint32_t { Free = 0, Taken = 1 };
struct CheckpointSlot {
  // Written by the controller, then woken (a shared futex); the checkpoint
  // process sets it back to None once it has acted on it.
  std::atomic<uint32_t> command;
  // Claimed (Taken) by the execution that takes the checkpoint; Free again
  // when its process is dropped.
  std::atomic<uint32_t> state;
  int32_t pid;  // the checkpoint process
  // The process of the latest Restore (a futex word: the controller waits
  // for it to become non-zero after it clears it and asks), -1 on failure.
  std::atomic<int32_t> restored_pid;
  uint64_t step;       // events performed at the checkpoint
  uint64_t execution;  // Header::execution of the execution it was taken in
};

// How an execution ended, as the agent saw it. The controller adds what only
// it can see (fatal signals, hangs, exits).
enum class Outcome : uint32_t {
  Running = 0,
  Complete = 1,     // every thread finished or the process exited
  Deadlock = 2,     // no thread enabled while some wait
  Assertion = 3,    // __assert_fail
  Abort = 4,        // abort() outside an assertion
  StepBound = 5,    // max_steps reached
  Diverged = 6,     // replay: the decision or the event differs from the trace
  Unsupported = 7,  // the program did something ctrl cannot control
  AgentError = 8,   // the agent failed
  Crash = 10,       // a fatal signal the program does not handle (signal, fault_addr)
  Hang = 11,        // every unfinished thread spins on memory nobody will write
  SleepBlocked = 12,  // only threads in the sleep set could run: a redundant execution
  Sanitizer = 13,     // a sanitizer's report (message: its first lines; agent/SanitizerRuntime.h)
};

// The step a sleeping thread would take (see Dependence.h's Access): the
// agent wakes it when an event conflicts with this, exactly as the
// controller computed it.
struct SleeperAccess {
  uint64_t write_addr, write_size;
  uint64_t read_addr, read_size;
  uint64_t read2_addr, read2_size;
  uint64_t object, object2;
  uint64_t everything;
};

// A store waiting in a store buffer (TSO/PSO), as a paused execution shows it.
struct BufferedStore {
  uint32_t thread;  // the storing thread
  uint32_t actor;   // the flush actor that commits it (kFlushActorBase + actor)
  uint64_t addr;
  uint64_t size;
  uint64_t value;  // its first 8 bytes, little-endian
  uint64_t step;   // the store's event
};
inline constexpr uint32_t kMaxShownStores = 128;

struct Signature {
  uint32_t thread;
  uint16_t kind;  // OpKind
  uint16_t pad;
  uint64_t site;
  uint64_t addr;
};

// One executed visible operation. `step` is its index in the execution.
struct Event {
  uint32_t step;
  uint16_t thread;
  uint16_t kind;  // OpKind
  uint64_t addr;  // object or memory address (0 if none)
  uint64_t site;  // return address of the interposed call in the target
  uint64_t value_read;
  uint64_t value_written;
  // kind-specific: thread index created/joined, mutex of a cond wait, result
  // code. Under c11/rc11: an AtomicStore's is the first 8 bytes memory held
  // just before it (the controller learns a location's initial value from
  // it), an AtomicRmw's its operand, an AtomicCas's the value it expected
  // (and a failed AtomicCas's value_written is what it would have written):
  // the controller recomputes them for another store read.
  uint64_t aux;
  uint32_t size;   // bytes accessed by atomics
  uint8_t order;   // MemOrder
  uint8_t rmw;     // RmwOp
  uint8_t flags;   // EventFlag bits
  uint8_t owner;   // Flush: the thread whose store buffer it is
  uint64_t enabled;  // threads that could have been chosen for this step
};
static_assert(sizeof(Event) == 64);

enum EventFlag : uint8_t {
  kFailed = 1,    // trylock/cas failed, wait timed out
  kTimedOut = 2,
  kLocked = 4,       // a locked (atomic) instruction
  kInstruction = 8,  // a trapped instruction site (site = its address)
  kBuffered = 16,    // TSO: the store went into its thread's buffer
  kForwarded = 32,   // TSO: the load read (part of) its thread's own buffer
  // An instruction read repeating the thread's latest read at the same site
  // and location in the same register and stack state (agent/LoopState.h).
  kSameState = 64,
  // A plain store of the value its bytes already held, as its thread saw them.
  kUnchanged = 128,
};

enum class ThreadStatus : uint32_t { Unused = 0, Runnable, Blocked, Finished };

// Per-thread facts the controller needs when it explains a bug.
struct ThreadSlot {
  int32_t tid;  // kernel thread id in the current execution
  ThreadStatus status;
  uint16_t pending_kind;  // OpKind the thread is parked at
  uint16_t pad;
  uint32_t waits_for_thread;  // for joins: the joined thread
  uint64_t await_addr;        // spinning: the location it waits to change (0: not spinning)
  uint64_t await_site;        // spinning: the load it repeats
  uint64_t pending_addr;
  uint64_t pending_site;
  uint64_t start_routine;
  // Parked at an instruction site: the address of a ucontext_t in the
  // thread's memory holding its exact registers at the instruction (0:
  // parked in an interposed call, where unwinding finds the caller).
  uint64_t site_context;
  // The thread's static TLS blocks [tls_lo, tls_hi), which glibc
  // initialised unseen (agent/ThreadLocalStorage.h); written when the
  // thread starts in the execution (T0: when the execution starts).
  uint64_t tls_lo, tls_hi;
};

struct Header {
  uint32_t magic;
  uint32_t version;
  uint64_t capacity;  // steps the arrays below hold
  uint64_t region_size;

  // ---- plan: written by the controller before RunExecution ----
  uint64_t execution;
  uint64_t seed;
  uint64_t max_steps;
  uint64_t prefix_len;
  TailPolicy policy;
  // 1: a plain read's event (Load, AtomicLoad) carries its thread's state
  // fingerprint (agent/LoopState.h; 0 unknown) in value_written, which a
  // read never uses otherwise (--strategy sat merges histories that reach
  // one state). 0: value_written is 0 there, as every other strategy sees it.
  uint32_t read_states;
  // Steps 0..checked_steps-1 compare their event with expected[step] (a
  // replayed prefix may be longer than the signatures known for it).
  uint64_t checked_steps;
  uint32_t target_output;     // 0 discard, 1 inherit
  MemoryModel model;
  // Sleep set (DPOR): threads that must not be chosen after the prefix until
  // an event conflicting with their pending operation wakes them. It applies
  // from the state of decision `sleep_from` on (forced decisions still run).
  uint64_t sleep_mask;
  uint64_t sleep_from;
  SleeperAccess sleepers[kMaxThreads];  // for the threads in sleep_mask
  // Take a live checkpoint when decision `checkpoint_at` is about to be
  // made (UINT64_MAX: never), in an execution that is not paused there.
  // (In the padding before `released`: on a page every execution reads.)
  uint64_t checkpoint_at;
  // TailPolicy::Pct: the depth d (initial priorities are d and above) and
  // the step of each priority-change point: at step pct_change[i] the
  // thread about to run drops to priority i + 1 (UINT64_MAX: none).
  uint32_t pct_depth;
  uint32_t pad4;
  uint64_t pct_change[kMaxPctDepth - 1];
  // The origin of the program's virtual clocks (agent/VirtualClock.h): the
  // controller's CLOCK_REALTIME and CLOCK_MONOTONIC when it launched the
  // program, or a trace's when it replays one. Written before the launch.
  int64_t clock_realtime_ns;
  int64_t clock_monotonic_ns;

  // Executions forked in advance ("spares") wait for this counter: the k-th
  // spare runs once it reaches k. The controller raises it (and wakes the
  // futex) when the plan above is ready.
  alignas(64) std::atomic<uint32_t> released;

  // ---- live: written by the agent ----
  alignas(64) std::atomic<uint64_t> steps;  // events logged so far
  std::atomic<uint32_t> attention;  // 1: the agent stopped itself for the controller
  std::atomic<uint32_t> started;    // 1: the execution's agent reached its first step
  uint32_t current;                 // thread holding the token
  uint32_t nthreads;
  Outcome outcome;
  uint32_t outcome_thread;
  uint64_t outcome_site;
  int32_t exit_status;
  int32_t signal;       // Crash: the signal
  uint64_t fault_addr;  // Crash: si_addr
  int32_t outcome_tid;  // kernel thread that ended the execution
  uint32_t pad2;
  char message[kMessageSize];
  // The first Rust panic of the execution (agent/PanicWatch.h): what the
  // default panic hook wrote to stderr, from its "thread '" on. panic_tid:
  // the kernel thread writing it (0: none yet); panic_done: the text is
  // whole (or the buffer full). Reset by the controller per execution.
  std::atomic<int32_t> panic_tid;
  uint32_t panic_thread;
  uint32_t panic_len;
  uint32_t panic_done;
  char panic_text[kPanicTextSize];
  ThreadSlot threads[kMaxThreads];
  // When the execution ends by a process exit or is cut by max_steps: the
  // operation each unfinished thread was parked at (one that never ran), as
  // an event (its `enabled` bit: whether it could run then). DPOR reverses
  // their races: they would come next. Written with npending last; read
  // only for such an execution.
  uint32_t npending;
  Event pending[kMaxThreads];

  // ---- stepping (TailPolicy::Ask) ----
  // The deciding thread of a paused execution publishes every thread's
  // slot, writes ask_step/ask_enabled, raises `asking` and says Paused on
  // the channel, then waits (a shared futex: the region is a MAP_SHARED
  // memfd) until the controller raises `reply`, having written `command`
  // and, for Go, the plan fields it changed (prefix, prefix_len, pause_at).
  uint64_t pause_at;  // plan: ask at this step even within the prefix
  alignas(64) std::atomic<uint32_t> asking;
  std::atomic<uint32_t> reply;
  StepCommand command;
  uint32_t pad3;
  uint64_t ask_step;
  uint64_t ask_enabled;  // threads and flush actors that may perform it
  uint32_t nbuffered;    // under tso/pso: the buffered stores at the pause
  uint32_t pad5;
  BufferedStore buffered[kMaxShownStores];

  // ---- live checkpoints (checkpoint_at: with the plan above) ----
  // Live: the slot of the latest checkpoint this execution took (by
  // checkpoint_at or StepCommand::Checkpoint), -1 when it could not, with
  // the reason in checkpoint_error.
  int32_t checkpoint_result;
  // Set (never cleared) by an execution's file journal when it records a
  // change (agent/FileJournal.h): once set, a live checkpoint may no longer
  // find the files as they were when it was taken (a restore does not undo
  // changes). The explorer stops using checkpoints then (CheckpointedSearch.h).
  std::atomic<uint32_t> files_changed;
  // Set by the fork server at the checkpoint (agent/FileState.h): regular
  // files the program holds open for writing there on descriptors other
  // than stdout and stderr, whose contents each
  // execution changes and gets back. With files_changed, whether ending
  // after a half-done execution leaves anything half-written.
  uint32_t files_written_at_checkpoint;
  char checkpoint_error[256];
  CheckpointSlot checkpoints[kMaxCheckpoints];

  // ---- written by the agent before the checkpoint (read under c11/rc11) ----
  // Memory the program initialised before its first thread, which no event
  // shows: bytes stored by atomic operations and blocks from calloc. A load
  // of such a location's value at the checkpoint is not uninitialised.
  // Overflowing the table makes every location count as initialised.
  uint32_t ninitialised;
  uint32_t initialised_overflow;
  struct Range {
    uint64_t addr, size;
  } initialised[kMaxInitialised];

  // ---- own memory (agent/OwnMemory.h; plan, then live) ----
  // Plan, written by the controller before an exploration (not per
  // execution): own_memory 1 makes an instruction's access that lies in its
  // own thread's stack or static TLS, and in no range of shared[], no step.
  // shared[0..nshared): sorted, disjoint [addr, addr + size), whole granules.
  uint32_t own_memory;
  uint32_t nshared;
  Range shared[kMaxShared];
  // Live (reset per execution by prepare): granule runs of another thread's
  // own memory, not in shared[], that a visible operation of this execution
  // accessed. discovered_overflow: more than kMaxDiscovered (the rest are
  // found again by a later execution).
  uint32_t ndiscovered;
  uint32_t discovered_overflow;
  Range discovered[kMaxDiscovered];
  // Live (reset per execution by prepare): the thread changes the agent made
  // within a kernel thread, without waking the next thread's own
  // (agent/Runtime.h, user-level hand-offs). Written by the running thread.
  uint64_t user_handoffs;
  // Of those, the threads of the pool started on another thread's kernel
  // thread, and those that ended on one (agent/Runtime.h).
  uint64_t user_thread_starts;
  uint64_t user_thread_ends;
  // The kernel thread running `current` when it is not that thread's own
  // (published tid): a user-level hand-off moved it; 0 otherwise.
  int32_t current_tid;
  uint32_t pad_current_tid;
};

inline size_t region_size_for(uint64_t capacity) {
  size_t s = sizeof(Header);
  s += capacity * sizeof(uint32_t);
  s = (s + 63) & ~size_t(63);
  s += capacity * sizeof(Choice);
  s = (s + 63) & ~size_t(63);
  s += capacity * sizeof(Signature);
  s = (s + 63) & ~size_t(63);
  s += capacity * sizeof(Event);
  return (s + 4095) & ~size_t(4095);
}

// Typed views of a mapped region.
struct View {
  Header* header = nullptr;
  uint32_t* prefix = nullptr;
  Choice* choices = nullptr;
  Signature* expected = nullptr;
  Event* events = nullptr;

  static View of(void* base) {
    View v;
    auto* h = static_cast<Header*>(base);
    v.header = h;
    auto* p = static_cast<char*>(base) + sizeof(Header);
    v.prefix = reinterpret_cast<uint32_t*>(p);
    size_t off = sizeof(Header) + h->capacity * sizeof(uint32_t);
    off = (off + 63) & ~size_t(63);
    v.choices = reinterpret_cast<Choice*>(static_cast<char*>(base) + off);
    off += h->capacity * sizeof(Choice);
    off = (off + 63) & ~size_t(63);
    v.expected = reinterpret_cast<Signature*>(static_cast<char*>(base) + off);
    off += h->capacity * sizeof(Signature);
    off = (off + 63) & ~size_t(63);
    v.events = reinterpret_cast<Event*>(static_cast<char*>(base) + off);
    return v;
  }
};

}  // namespace ctrl::shm
