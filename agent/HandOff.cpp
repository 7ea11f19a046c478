// Handing the turn from one thread to the next, and waiting for it: the
// path every thread change takes. The thread that hands over marks the
// chosen one's park word and, only when that thread sleeps, wakes it
// (FUTEX_WAKE); the waiting thread yields a few times, or sleeps at once,
// by where the threads run (Runtime.h, spin_yield).
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "DeferredSignals.h"
#include "InstructionSites.h"
#include "OwnCalls.h"
#include "ParkContext.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "SanitizerRuntime.h"
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

namespace {

// ctrl attach --kernel-handoffs turns user-level hand-offs off.
const bool kCarriersWanted = [] {
  const char* v = getenv("CTRL_HANDOFF");
  return !(v && std::string_view(v) == "kernel");
}();

// The kernel lets user code write the thread pointer (HWCAP2_FSGSBASE).
bool fsgsbase_usable() { return (getauxval(AT_HWCAP2) & 2) != 0; }

inline void set_thread_pointer(uint64_t fs) { asm volatile("wrfsbase %0" : : "r"(fs) : "memory"); }

// Where each thread's own kernel thread runs while it carries nobody: off
// every thread's stack (another carrier may resume the thread it left).
constexpr size_t kCarrierStack = 16384;
alignas(4096) char carrier_stacks[Runtime::kMaxCarriers][kCarrierStack];
static_assert(kCarrierStack % 4096 == 0);
static_assert(Runtime::kMaxCarriers == 1 + thread_pool::kSlots);
void* carrier_stack_top(uint32_t k) { return carrier_stacks[k] + kCarrierStack; }

uint64_t bit(uint32_t t) { return uint64_t(1) << t; }

}  // namespace

MemoryRange Runtime::carrier_stacks_memory() {
  uint64_t start = reinterpret_cast<uint64_t>(carrier_stacks);
  return MemoryRange{start, start + sizeof carrier_stacks};
}

bool Runtime::carriers_allowed() const {
  static const bool fsgsbase = fsgsbase_usable();
  return kCarriersWanted && fsgsbase && in_place_ && !stepping_ && checkpoint_at_ == UINT64_MAX && !sites.trapped() &&
         !sanitizer::present();
}

bool Runtime::runs_anywhere(OpKind kind) {
  // Steps after which the thread only runs on: no real wait in the kernel
  // while others run, no system call that names the thread itself.
  switch (kind) {
    case OpKind::ThreadStart:
    case OpKind::ThreadCreate:
    case OpKind::ThreadJoin:
    case OpKind::ThreadDetach:
    case OpKind::MutexLock:
    case OpKind::MutexTryLock:
    case OpKind::MutexUnlock:
    case OpKind::CondWait:
    case OpKind::CondReacquire:
    case OpKind::CondSignal:
    case OpKind::CondBroadcast:
    case OpKind::RwReadLock:
    case OpKind::RwWriteLock:
    case OpKind::RwTryReadLock:
    case OpKind::RwTryWriteLock:
    case OpKind::RwUnlock:
    case OpKind::BarrierWait:
    case OpKind::BarrierLeave:
    case OpKind::SemWait:
    case OpKind::SemTryWait:
    case OpKind::SemPost:
    case OpKind::AtomicLoad:
    case OpKind::AtomicStore:
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
    case OpKind::Fence:
    case OpKind::Load:
    case OpKind::Store:
    case OpKind::Rmw:
      return true;
    default:
      return false;
  }
}

void Runtime::switch_turn(uint32_t me, uint32_t next) {
  if (ctrl_context_save(&uctx_[me]) == 0) {
    uint32_t c = carrier_of_[me];
    if (runs_here(next)) run_here(next, c, bit(me));
    // `next` is woken where it waits; this carrier leaves `me`'s stack
    // first: `next` may resume `me` at once.
    ctrl_call_on_stack(carrier_leave, reinterpret_cast<void*>(uintptr_t(me | next << 8 | c << 16 | 1u << 24)),
                       carrier_stack_top(c));
  }
  after_turn(me);
}

bool Runtime::runs_here(uint32_t next) const {
  if (next >= shm::kMaxThreads) return false;
  // (A carried thread whose step must run at home is woken there instead:
  // going home right after the switch would cost a kernel hand-off more.)
  if ((carried_ >> next) & 1) {
    OpKind kind = model.thread(next).pending.kind;
    return runs_anywhere(kind) || (kind == OpKind::ThreadExit && ((ends_anywhere_ >> next) & 1));
  }
  // A new thread's first step (ThreadStart) runs anywhere; its alternate
  // signal stack must be its own kernel thread's already
  // (prepare_thread_signals would set this one's).
  return ((unstarted_ >> next) & 1) && thread_pool::can_start_away(unstarted_slot_[next]) &&
         rollback::slot_alternate_stack_known(unstarted_slot_[next], next);
}

void Runtime::run_here(uint32_t next, uint32_t c, uint64_t now_carried) {
  // The hand-off without the kernel: this kernel thread goes on as `next`.
  bool carried = (carried_ >> next) & 1;
  current_ = next;
  region.header->current = next;
  carried_ = (carried_ & ~bit(next)) | now_carried;
  carrier_of_[next] = uint8_t(c);
  ++region.header->user_handoffs;
  region.header->current_tid = carrier_tid_[c];
  park_[next].go.store(kGo, std::memory_order_relaxed);
  if (carried) {
    set_thread_pointer(park_[next].fs_base);
    ctrl_context_resume(&uctx_[next]);
  }
  // A new thread: its slot's start context, as its own kernel thread would
  // resume it (first_turn keeps carrier_of_).
  uint32_t slot = unstarted_slot_[next];
  unstarted_ &= ~bit(next);
  home_of_[next] = uint8_t(1 + slot);
  ++region.header->user_thread_starts;
  thread_pool::resume_start(slot, true);
}

void Runtime::leave_ended(uint32_t me, uint32_t next) {
  uint32_t c = carrier_of_[me], k = uint32_t(home_of_[me]) - 1;
  carrier_of_[me] = kNoCarrier;
  if (c != k + 1) ++region.header->user_thread_ends;
  if (runs_here(next)) {
    // Nothing runs on the ended thread's stack once switched.
    thread_pool::note_parked(k);
    run_here(next, c, 0);
  }
  hand_to(next);
  // Parked only once off its stack: `next` may end the execution at once,
  // and the rollback restores that stack.
  ctrl_call_on_stack(ended_idle, reinterpret_cast<void*>(uintptr_t(c | k << 8)), carrier_stack_top(c));
}

void Runtime::ended_idle(void* arg) {
  auto a = uint32_t(reinterpret_cast<uintptr_t>(arg));
  uint32_t c = a & 0xff, k = (a >> 8) & 0xff;
  // Its own kernel thread idles with every signal blocked, as a parked one.
  if (c == k + 1) {
    uint64_t all = ~uint64_t(0);
    raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&all), 0, 8);
  }
  thread_pool::note_parked(k);
  rt.carrier_idle(c);
}

void Runtime::start_at_home(uint32_t c) {
  home_[c].store(kHomeStart, std::memory_order_release);
  futex_wake(&home_[c]);
}

void Runtime::carrier_leave(void* arg) {
  // me | next << 8 | carrier << 16 | handing over << 24; not handing over:
  // `me` goes home.
  auto a = uint32_t(reinterpret_cast<uintptr_t>(arg));
  uint32_t me = a & 0xff, next = (a >> 8) & 0xff, c = (a >> 16) & 0xff;
  if (!(a >> 24)) {
    rt.wake_carried(me, kGo);
  } else {
    rt.carried_ |= bit(me);
    rt.hand_to(next);
  }
  rt.carrier_idle(c);
}

void Runtime::carrier_idle(uint32_t c) {
  for (;;) {
    uint32_t w = home_[c].load(std::memory_order_acquire);
    if (w == kHomeIdle) {
      raw_syscall(SYS_futex, reinterpret_cast<long>(&home_[c]), FUTEX_WAIT_PRIVATE, kHomeIdle, 0, 0, 0);
      continue;
    }
    home_[c].store(kHomeIdle, std::memory_order_relaxed);
    if (w == kHomeResume) {
      uint32_t t = resume_[c];
      if (c > 0) thread_pool::went_home(c - 1);
      set_thread_pointer(park_[t].fs_base);
      ctrl_context_resume(&uctx_[t]);
    }
    if (w == kHomeStart) thread_pool::resume_start(c - 1, false);
    // kHomeEnd (end_other_threads): as a parked thread told kExit, with
    // its own thread pointer (the pool's calls use thread-local storage).
    set_thread_pointer(carrier_fs_[c]);
    if (c > 0) thread_pool::park_for_rollback(c - 1);
    for (;;) raw_syscall(SYS_exit, 0);
  }
}

void Runtime::wake_carried(uint32_t t, uint32_t word) {
  uint32_t h = home_of_[t];
  region.header->current_tid = 0;
  carried_ &= ~bit(t);
  carrier_of_[t] = uint8_t(h);
  park_[t].go.store(word, std::memory_order_release);
  resume_[h] = uint8_t(t);
  home_[h].store(kHomeResume, std::memory_order_release);
  futex_wake(&home_[h]);
}

void Runtime::pose_carried(uint32_t me) {
  if (!carriers_) return;
  go_home(me);
  uint64_t posed = carried_ & ~bit(me);
  for (uint64_t m = posed; m; m &= m - 1) wake_carried(uint32_t(__builtin_ctzll(m)), kPose);
  // Until each sleeps at home (its stack is then what the controller
  // unwinds), for a second at most.
  int64_t start = virtual_clock::real_monotonic_ns();
  for (uint64_t m = posed; m && virtual_clock::real_monotonic_ns() - start < 1000000000;) {
    uint32_t t = uint32_t(__builtin_ctzll(m));
    if (park_[t].go.load(std::memory_order_acquire) == kSleeping)
      m &= m - 1;
    else
      real.sched_yield();
  }
}

void Runtime::go_home(uint32_t me) {
  if (!carriers_ || me >= shm::kMaxThreads || carrier_of_[me] == home_of_[me]) return;
  if (ctrl_context_save(&uctx_[me]) == 0) {
    uint32_t c = carrier_of_[me];
    ctrl_call_on_stack(carrier_leave, reinterpret_cast<void*>(uintptr_t(me | c << 16)), carrier_stack_top(c));
  }
  park_[me].go.store(kWaiting, std::memory_order_relaxed);
}

void Runtime::hand_to(uint32_t next) {
  current_ = next;
  region.header->current = next;
  region.header->current_tid = 0;
  if (next < shm::kMaxThreads && ((carried_ >> next) & 1)) {
    wake_carried(next, kGo);
    return;
  }
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
  after_turn(me);
}

void Runtime::after_turn(uint32_t me) {
  std::atomic<uint32_t>& go = park_[me].go;
  // Rolled back: this thread no longer exists in the checkpoint's state.
  uint32_t word = go.load(std::memory_order_acquire);
  if (word == kExit) {
    if (thread_pool::my_slot() != thread_pool::kNoSlot) thread_pool::park_for_rollback(thread_pool::my_slot());
    for (;;) raw_syscall(SYS_exit, 0);
  }
  // A bug ends the execution: the thread waits at home, as a thread parked
  // by a kernel hand-off would, for the controller to look at (pose_carried).
  if (word == kPose) {
    go.store(kSleeping, std::memory_order_release);
    for (;;) raw_syscall(SYS_futex, reinterpret_cast<long>(&go), FUTEX_WAIT_PRIVATE, kSleeping, 0, 0, 0);
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
