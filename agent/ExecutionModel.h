// The scheduler's model of the target's synchronisation state: which thread
// waits on what, who owns which mutex, semaphore counts, barrier phases.
//
// The model, not the kernel, decides whether a thread can proceed: a thread is
// picked only when its pending operation is enabled, and the real pthread call
// it then makes can no longer block. Conditions and barriers are implemented
// entirely here (the real objects are never waited on), so a target thread
// never sleeps in the kernel on its own synchronisation.
//
// Pure state machine: no system calls, no I/O; one target thread at a time
// calls it (the one holding the scheduling token), so it needs no locking.
// It lives in the agent's private memory, so every execution forked from the
// checkpoint starts from the model as it was at the checkpoint.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "Operation.h"
#include "SharedRegion.h"

namespace ctrl::agent {

inline constexpr uint32_t kNoThread = UINT32_MAX;

enum class MutexType : uint8_t { Normal, Recursive, ErrorCheck };

struct PendingOp {
  OpKind kind = OpKind::None;
  uint64_t addr = 0;    // object the operation acts on
  uint64_t addr2 = 0;   // the mutex of a condition wait
  uint64_t site = 0;    // call site in the target
  uint32_t target = kNoThread;  // joined thread
  bool timed = false;   // may give up (time-out) instead of blocking
  uint64_t phase = 0;   // barrier generation the thread waits to leave
  uint32_t size = 0;    // bytes a memory operation touches
  // A read's loop_state() (agent/LoopState.h) at the instruction; 0: unknown.
  uint64_t state = 0;
  // x86-TSO: the operation waits for its thread's store buffer to drain
  // (locked instructions, fences, synchronisation calls, exits).
  bool drains = true;
  // Futex waits: the value the word held (for reports) and the bitset.
  uint32_t value = 0;
  uint32_t bitset = 0;
};

// The pending operation of a memory access (`addr2`: a string move's source).
inline PendingOp memory_op(OpKind kind, uint64_t addr, uint32_t size, uint64_t site, uint64_t addr2 = 0) {
  PendingOp op;
  op.kind = kind;
  op.addr = addr;
  op.addr2 = addr2;
  op.site = site;
  op.size = size;
  op.drains = false;
  return op;
}

struct ThreadModel {
  bool used = false;
  bool finished = false;
  bool detached = false;
  bool signalled = false;  // its condition wait was signalled
  uint64_t wait_seq = 0;   // FIFO order among a condition's waiters
  // The pthread_t that names this thread, 0 once it names it no more: after
  // its join, or once it is detached and finished. libc then hands the same
  // value (and stack) to a new thread, so a stale one must never match.
  uint64_t handle = 0;
  // The thread that joined it (kNoThread: not joined). Its index is free
  // for that thread's next creation (see add_thread).
  uint32_t joined_by = kNoThread;
  PendingOp pending;
  // Spin detection: the thread's latest reads (instruction, location, the
  // thread's own state there) and whether memory there has changed since. A
  // thread about to repeat the latest of them at the same instruction and
  // location, in the same state, when nothing it read from there on has
  // changed and it changed no memory itself, would go round the same loop
  // on the same values: it is not enabled until a write overlaps one of
  // those locations (await). Only the latest visit counts (as the DPOR
  // strategy assumes: analyses/DporStrategy.cpp, movable).
  struct RecentRead {
    uint64_t site = 0;
    uint64_t addr = 0;
    uint64_t state = 0;
    uint32_t size = 0;
    bool unchanged = false;
  };
  static constexpr uint32_t kWindow = 8;
  RecentRead reads[kWindow];
  uint32_t next_read = 0;  // ring position of the next entry
  // Re-reads left before a spin is confirmed, while the thread is let run to
  // prove it (0: not probing).
  uint32_t probe = 0;
  // The probe confirmed the spin; the thread waits for a write again, and is
  // not probed again until one changes what it re-reads.
  bool spin_confirmed = false;
  // Kernel waits (FdWait, SignalWait, ChildWait): the readiness probe taken
  // at the latest decision found the call would not block; `external`: no
  // thread could run, so it was chosen to block in the kernel for real.
  bool ready = false;
  bool external = false;
  // Own memory (OwnMemory.h): instruction accesses left hidden since the
  // last burst, and loads made steps in the current burst.
  uint32_t own_quiet = 0;
  uint32_t own_burst = 0;
};

// Whether a pending operation of this kind is a probed kernel wait.
inline bool is_kernel_wait(OpKind k) { return op_is_kernel_wait(k); }

class ExecutionModel {
 public:
  ExecutionModel();

  // A new thread created by `creator`, enabled with pending ThreadStart;
  // kNoThread when every index is taken. Indices are what traces and DPOR
  // name threads by, and the limit (kMaxThreads) counts threads not yet
  // joined: the new thread takes the lowest index of a thread `creator`
  // itself joined, if any, else a fresh one. Only those: the old thread's
  // exit then happens before the new one's creation (exit -> join -> create
  // in the creator's program order), so continuing the index's program
  // order is true happens-before for DPOR's vector clocks. A detached
  // thread's index, whose end nothing orders, is never reused; nor one
  // another thread joined (its join need not happen before this creation).
  // The choice depends only on the creator's own history and the count of
  // indices, so a replayed prefix names every thread alike.
  uint32_t add_thread(uint32_t creator = kNoThread);
  uint32_t thread_count() const { return count_; }
  ThreadModel& thread(uint32_t t) { return threads_[t]; }
  const ThreadModel& thread(uint32_t t) const { return threads_[t]; }
  // The thread a pthread_t names now (kNoThread: none).
  uint32_t find_by_handle(uint64_t handle) const;
  // `t` is named `handle` from now on (a value no other thread keeps).
  void thread_named(uint32_t t, uint64_t handle);
  // `joiner` joined `t` (finished): its pthread_t is stale from here on.
  void thread_joined(uint32_t t, uint32_t joiner);
  // `t` was detached (at its creation or later).
  void thread_detached(uint32_t t);

  void set_pending(uint32_t t, const PendingOp& op) { threads_[t].pending = op; }
  bool enabled(uint32_t t) const;
  // x86-TSO: threads whose store buffer is not empty.
  void set_buffered(uint64_t mask) { buffered_ = mask; }
  uint64_t enabled_mask() const;
  bool all_finished() const;
  // Kernel waits: `t` starts waiting (its pending operation is `op`, in
  // arrival order among waiters); the probe's verdict for it; the oldest
  // waiting thread that is not ready, which blocks in the kernel when no
  // thread can run (kNoThread: none).
  void kernel_wait_begin(uint32_t t, const PendingOp& op);
  void set_ready(uint32_t t, bool ready) { threads_[t].ready = ready; }
  void set_external(uint32_t t) { threads_[t].external = true; }
  uint32_t oldest_kernel_waiter() const;
  // `t` waits on a futex and nobody has woken it yet.
  bool futex_waiting(uint32_t t) const {
    return threads_[t].pending.kind == OpKind::FutexWoken && !threads_[t].signalled;
  }
  // Thread that `t` waits for (mutex owner, writer, joined thread), or kNoThread.
  uint32_t blocker(uint32_t t) const;

  // First sight of an object whose state predates the model.
  void mutex_seen(uint64_t m, MutexType type);
  void sem_seen(uint64_t s, int64_t value);
  void sem_init(uint64_t s, int64_t value) { sems_[s] = value; }
  void barrier_init(uint64_t b, uint32_t count);

  // Transitions, called when `t` performs its (enabled) pending operation.
  // Mutexes: lock returns false when `t` cannot take it (held by another or a
  // non-recursive relock): try/timed variants then fail.
  bool mutex_can_lock(uint32_t t, uint64_t m) const;
  void mutex_locked(uint32_t t, uint64_t m);
  void mutex_unlocked(uint32_t t, uint64_t m);
  int32_t mutex_owner(uint64_t m) const;

  void cond_wait_begin(uint32_t t, uint64_t c, uint64_t m, bool timed, uint64_t site);
  uint32_t cond_signal(uint64_t c);  // the woken thread or kNoThread
  uint32_t cond_broadcast(uint64_t c);  // how many woke

  bool rw_can_read(uint64_t rw) const;
  bool rw_can_write(uint64_t rw) const;
  void rw_read_locked(uint32_t t, uint64_t rw);
  void rw_write_locked(uint32_t t, uint64_t rw);
  void rw_unlocked(uint32_t t, uint64_t rw);

  // True for the thread that opened the barrier (PTHREAD_BARRIER_SERIAL_THREAD);
  // otherwise the thread's pending operation becomes BarrierLeave.
  bool barrier_arrive(uint32_t t, uint64_t b, uint64_t site);
  bool barrier_open(uint64_t b, uint64_t phase) const;
  // The generation a thread arriving at barrier `b` now joins (logged with
  // barrier events: DPOR orders a leave after the arrival that opened its
  // generation, and only arrivals of one generation conflict).
  uint64_t barrier_phase(uint64_t b) const;

  bool sem_available(uint64_t s) const;
  void sem_acquired(uint64_t s);
  void sem_posted(uint64_t s);

  void thread_finished(uint32_t t);

  // Futexes, modelled instead of slept in (agent/KernelWaits.h). A wait that
  // found the word equal to its expected value makes `t` a waiter on addr:
  // its pending operation becomes FutexWoken, enabled once a wake picked it
  // (or at once when `timed`: chosen unwoken, it times out). Wakes pick the
  // oldest waiters whose bitset meets theirs, up to n, and return how many.
  void futex_wait_begin(uint32_t t, uint64_t addr, uint32_t value, uint32_t bitset, bool timed, uint64_t site);
  uint32_t futex_wake(uint64_t addr, uint32_t bitset, uint32_t n);
  // FUTEX_(CMP_)REQUEUE: wakes up to `n` waiters of addr, then moves up to
  // `moved` of the rest to addr2 (still waiting); returns woken + moved.
  uint32_t futex_requeue(uint64_t addr, uint64_t addr2, uint32_t n, uint32_t moved, uint32_t& woken);

  // Memory effects, for spin detection: a read of [addr, addr+size) at
  // `site`, and a write (by anyone) of a range.
  void memory_loaded(uint32_t t, uint64_t site, uint64_t addr, uint32_t size);
  // `writer` (kNoThread for a store buffer's flush) changed memory: it is
  // making progress, so its own re-reads no longer count as spinning.
  // `visible`: other threads see it (false for a store into its buffer).
  void memory_written(uint64_t addr, uint32_t size, uint32_t writer, bool visible = true);
  // `t` wrote its own memory without a step (OwnMemory.h): progress no
  // other thread sees, so its own re-reads no longer count as spinning.
  void own_memory_written(uint32_t t);
  // The pending read repeats the thread's latest read at the same site and
  // location in the same state (whether or not memory changed since): the
  // event flag kSameState, from which DPOR tells where the thread would
  // await.
  bool same_state_repeat(uint32_t t) const;
  // `t` waits for a write: its pending operation re-reads an unchanged
  // location. Not while it holds a mutex or write lock another thread waits
  // for: its loop releases it (a loop polling under a lock), and taken for a
  // spinner inside its critical section it would block the very threads
  // that could write what it re-reads (a false hang).
  bool awaiting(uint32_t t) const;
  bool holds_what_others_wait_for(uint32_t t) const;
  // The entry of the window the pending operation repeats, if the thread
  // would go round an unchanged loop; -1 otherwise.
  int repeated_read(uint32_t t) const;
  // When only awaiting threads could run: lets them run again to tell a real
  // spin from a bounded re-read loop (all of them: one may be a bounded loop
  // whose progress ends another's wait). False when there is none left to
  // probe.
  bool start_spin_probe();
  // Called after each load: a probed thread that re-read its location
  // unchanged kSpinProbe times is confirmed to spin and waits again.
  void check_probe(uint32_t t);
  // A thread whose spin the probe confirmed (kNoThread if none): when no
  // thread can run and none is left to probe, it hangs.
  uint32_t confirmed_spinner() const;
  static constexpr uint32_t kSpinProbe = 100;

  std::string describe_wait(uint32_t t) const;

  // f(address, owner thread, is_rwlock) for every held mutex and
  // write-locked rwlock: a live checkpoint's restore gives their owners
  // new kernel thread ids, which glibc keeps in the objects.
  template <typename F>
  void for_each_held(F&& f) const {
    for (const auto& [addr, m] : mutexes_)
      if (m.owner >= 0) f(addr, uint32_t(m.owner), false);
    for (const auto& [addr, rw] : rwlocks_)
      if (rw.writer >= 0) f(addr, uint32_t(rw.writer), true);
  }

 private:
  struct Mutex {
    int32_t owner = -1;
    uint32_t depth = 0;
    MutexType type = MutexType::Normal;
  };
  struct RwLock {
    int32_t writer = -1;
    uint32_t readers = 0;
  };
  struct Barrier {
    uint32_t count = 0;
    uint32_t arrived = 0;
    uint64_t phase = 0;
  };

  // The window entry of the latest read at the pending operation's site and
  // location (-1: none in the window); `unchanged`: nothing it or any newer
  // entry read has been written since.
  int latest_visit(uint32_t t, bool& unchanged) const;

  ThreadModel threads_[shm::kMaxThreads];
  uint32_t count_ = 0;
  uint64_t next_wait_seq_ = 1;
  uint64_t buffered_ = 0;
  std::unordered_map<uint64_t, Mutex> mutexes_;
  std::unordered_map<uint64_t, RwLock> rwlocks_;
  std::unordered_map<uint64_t, Barrier> barriers_;
  std::unordered_map<uint64_t, int64_t> sems_;
};

}  // namespace ctrl::agent
