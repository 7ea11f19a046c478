// Visible operations: the points at which a target thread stops and lets the
// scheduler choose who runs next. The numeric values are stored in trace
// files, so they never change; new kinds are appended.
#pragma once

#include <cstdint>

namespace ctrl {

enum class OpKind : uint16_t {
  None = 0,
  ThreadStart = 1,  // first step of a new thread, before any of its own code
  ThreadCreate = 2,
  ThreadJoin = 3,
  ThreadExit = 4,
  ThreadDetach = 5,
  MutexLock = 6,
  MutexTryLock = 7,
  MutexTimedLock = 8,
  MutexUnlock = 9,
  CondWait = 10,       // releases the mutex and starts waiting
  CondTimedWait = 11,  // same, may time out
  CondReacquire = 12,  // after a signal (or time-out): takes the mutex back
  CondSignal = 13,
  CondBroadcast = 14,
  RwReadLock = 15,
  RwWriteLock = 16,
  RwTryReadLock = 17,
  RwTryWriteLock = 18,
  RwTimedReadLock = 19,
  RwTimedWriteLock = 20,
  RwUnlock = 21,
  BarrierWait = 22,   // arrives at the barrier
  BarrierLeave = 23,  // leaves once the barrier opened
  SemWait = 24,
  SemTryWait = 25,
  SemTimedWait = 26,
  SemPost = 27,
  Yield = 28,  // sched_yield and sleeps
  AtomicLoad = 29,
  AtomicStore = 30,
  AtomicRmw = 31,  // exchange and fetch-op
  AtomicCas = 32,
  Fence = 33,
  ProcessExit = 34,
  // Instructions of instrumented code (trapped sites).
  Load = 35,   // reads memory (string compares and scans too)
  Store = 36,  // writes memory (string moves: aux is the source)
  Rmw = 37,    // reads and writes; EventFlag kLocked when atomic
  // TSO/PSO: a buffered store reaches memory. Its thread is a flush actor
  // (>= shm::kFlushActorBase: under TSO the base + the storing thread, under
  // PSO one per thread and location in order of first use); Event::owner is
  // the storing thread, aux the step of the store.
  Flush = 38,
  // Kernel waits (agent/KernelWaits.h). A futex wait compares the word with
  // the expected value (a read of addr): unequal, it fails (kFailed, EAGAIN);
  // equal, the thread becomes a waiter and its next step is FutexWoken.
  FutexWait = 39,
  FutexWake = 40,    // aux: how many waiters it woke
  FutexWoken = 41,   // the waiter leaves (kTimedOut: nobody woke it)
  FutexRequeue = 42, // wakes some waiters of addr, moves others to aux
  // Blocking calls whose enabledness is a readiness probe (KernelWaits.h).
  // addr: the descriptor (FdWait) or 0; value_written: the system call
  // number; value_read: its result; aux: the object (Dependence.h).
  FdWait = 43,      // read/write/recv/send/accept on a pipe or socket, poll, select, epoll_wait
  SignalWait = 44,  // sigwait, sigwaitinfo, sigtimedwait, sigsuspend, pause
  ChildWait = 45,   // wait4, waitpid, waitid
  SignalSend = 46,  // kill, tgkill, tkill, pthread_kill, raise (addr: the signal)
  Count
};

// Read-modify-write operators of AtomicRmw events.
enum class RmwOp : uint8_t { None = 0, Xchg, Add, Sub, And, Or, Xor, Nand };

// C11 memory orders, as passed to libatomic (__ATOMIC_RELAXED = 0 ...).
enum class MemOrder : uint8_t { Relaxed = 0, Consume, Acquire, Release, AcqRel, SeqCst, NotAtomic = 255 };

const char* op_name(OpKind k);
const char* rmw_name(RmwOp op);
const char* order_name(MemOrder o);


}  // namespace ctrl
