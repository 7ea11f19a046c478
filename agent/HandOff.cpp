// Handing the turn from one thread to the next, and waiting for it: the
// path every thread change takes. The thread that hands over marks the
// chosen one's park word and, only when that thread sleeps, wakes it
// (FUTEX_WAKE); the waiting thread yields a few times, or sleeps at once,
// by where the threads run (Runtime.h, spin_yield).
#include <sys/syscall.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>

#include "OwnCalls.h"
#include "ParkContext.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "ThreadPool.h"
#include "VirtualClock.h"

namespace ctrl::agent {

using own::futex_wake;
using own::sys;

// A parked thread yields the CPU a few times before it sleeps: waking a
// sleeping thread costs tens of microseconds in a VM, and spinning with pause
// only delays the thread it handed over to when both share a CPU (measured
// with bench/run.sh: 27 us per switch with 1000 pauses, about 2 us now).
// A runner (one CPU) sets spin_yield to 0: there a yield mostly runs another
// waiting thread, which only sleeps in turn (a context switch more than the
// hand-off). It still yields (a few times) when only two threads are enabled, the
// one handing over and the one taking over: the only thread a yield can run
// is then the one just handed to, and its next hand-off can only be back,
// to a thread that has not slept (no futex wake, no futex wait).
int spin_pause = 0;
int spin_yield = 20;
// A runner's execution this long (in steps) spreads its threads over the
// program's CPUs (Runtime::spread): on two CPUs the thread handed to, still
// yielding on the other one, takes the turn without a wake-up (about 1 us
// per thread change against 1.7 us pinned). Unpinning and pinning back cost
// a system call per thread, tens of microseconds: short executions (those of
// bench/anchors.sh, under 100 steps) stay on one CPU.
constexpr uint64_t kSpreadAfterSteps = 4096;
constexpr int kSpreadYields = 20;
// A pair hand-off's yields that take longer than this per step the other
// thread made ran something besides that thread.
constexpr uint64_t kQuickYieldNs = 20000;
constexpr uint32_t kPairYieldBackoff = 64;
constexpr int kPairYields = 8;
constexpr uint32_t kPairYieldBackoffMax = 1 << 16;
constexpr uint32_t kPairTimedEvery = 4;

void Runtime::hand_to(uint32_t next) {
  current_ = next;
  region.header->current = next;
  // Only a thread that went to sleep needs the (slow) wake-up system call.
  if (park_[next].go.exchange(kGo, std::memory_order_acq_rel) == kSleeping)
    futex_wake(&park_[next].go);
  else if (next < shm::kMaxThreads && (unstarted_ >> next) & 1)
    start_deferred(next);
}

void Runtime::allow_spread() { spread_at_ = kSpreadAfterSteps; }

void Runtime::spread() {
  spread_at_ = UINT64_MAX;
  // (Both undone by the rollback: spin_yield is program memory.)
  if (rollback::spread_threads()) spin_yield = kSpreadYields;
}

void Runtime::start_deferred(uint32_t t) {
  unstarted_ &= ~(uint64_t(1) << t);
  thread_pool::wake(unstarted_slot_[t]);
}

void Runtime::wait_turn(uint32_t me, bool pair) {
  std::atomic<uint32_t>& go = park_[me].go;
  for (int i = 0; i < spin_pause; ++i) {
    if (go.load(std::memory_order_acquire) == kGo) break;
    __builtin_ia32_pause();
  }
  if (spin_yield > 0) {
    for (int i = 0; i < spin_yield && go.load(std::memory_order_acquire) != kGo; ++i) real.sched_yield();
  } else if (pair && pair_yield_skip_ > 0) {
    --pair_yield_skip_;
  } else if (pair && pair_untimed_ > 0) {
    // Untimed, no decision on the back-off: as many yields as a timed wait
    // makes while the latest ones all paid (no back-off left), else only
    // the first (a timed wait's first needs no clock either). Sleeping
    // early costs the other thread a wake-up and both a context switch.
    --pair_untimed_;
    int yields = pair_yield_backoff_ == 0 ? kPairYields : 1;
    for (int i = 0; i < yields && go.load(std::memory_order_acquire) != kGo; ++i) real.sched_yield();
  } else if (pair) {
    pair_untimed_ = kPairTimedEvery - 1;
    // Quick: no slower than kQuickYieldNs per step the other thread made
    // meanwhile (it may run several before it hands back). (Not rdtsc: it
    // faults in a controlled process, VirtualTsc.h, and so the vDSO's clock
    // is a system call too, VirtualVdso.h.)
    int64_t start = virtual_clock::real_monotonic_ns();
    uint64_t start_step = step_;
    pair_clock_ns_.store(start, std::memory_order_release);
    auto quick_at = [&](int64_t now) { return uint64_t(now - start) < kQuickYieldNs * (1 + step_ - start_step); };
    auto quick = [&] { return quick_at(virtual_clock::real_monotonic_ns()); };
    // A yield may return before the other thread ran: the scheduler keeps
    // the CPU for a thread that had less than its share (EEVDF), which the
    // one handed to may not have had after several steps in a row. (The
    // first yield follows the start at once: it needs no clock.)
    for (int i = 0; i < kPairYields && go.load(std::memory_order_acquire) != kGo && (i == 0 || quick()); ++i)
      real.sched_yield();
    // Handed back: the end is the other thread's start of its own pair wait,
    // if it timed one. (If it handed to a third thread instead, which handed
    // back here later, the wait looks shorter than it was: only the
    // back-off is affected, never a decision.)
    auto back_quick = [&] {
      int64_t then = pair_clock_ns_.load(std::memory_order_acquire);
      return then > start ? quick_at(then) : quick();
    };
    if (go.load(std::memory_order_acquire) == kGo && back_quick()) {
      pair_yield_backoff_ /= 2;
    } else {
      pair_yield_backoff_ = std::min(std::max(pair_yield_backoff_ * 2, kPairYieldBackoff), kPairYieldBackoffMax);
      pair_yield_skip_ = pair_yield_backoff_;
    }
  }
  uint32_t expected = kWaiting;
  if (go.compare_exchange_strong(expected, kSleeping, std::memory_order_acq_rel)) {
    // A live checkpoint recreates a thread from where it sleeps here.
    ParkContext context;
    context.valid = 0;
    park_[me].context = &context;
    while (go.load(std::memory_order_acquire) == kSleeping) ctrl_park_sleep(&go, kSleeping, &context);
    park_[me].context = nullptr;
  }
  // Rolled back: this thread no longer exists in the checkpoint's state.
  uint32_t word = go.load(std::memory_order_acquire);
  if (word == kExit) {
    if (thread_pool::my_slot() != thread_pool::kNoSlot) thread_pool::park_for_rollback(thread_pool::my_slot());
    for (;;) raw_syscall(SYS_exit, 0);
  }
  // The runner's main thread, asked to put the process back.
  if (word == kRollBack) {
    if (!end_other_threads(me)) rollback::abandon("a thread of the execution could not be ended", 0);
    rollback::roll_back(0);
  }
  go.store(kWaiting, std::memory_order_relaxed);
  if (int* w = exiting_tid_) {
    exiting_tid_ = nullptr;
    // The kernel clears it and wakes a shared futex (as pthread_join waits).
    for (int v; (v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) != 0;) sys(SYS_futex, w, FUTEX_WAIT, v, nullptr, nullptr, 0);
  }
}

}  // namespace ctrl::agent
