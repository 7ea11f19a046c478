#include "ThreadPool.h"

#include <dlfcn.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

#include "OwnMemory.h"
#include "OwnPid.h"
#include "ParkContext.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "SavedContext.h"
#include "Signals.h"

namespace ctrl::agent::thread_pool {

// Defined in InterposePthread.cpp: a controlled thread's first turn and its
// start routine (the same code for slot threads and real ones).
void* run_controlled(const StartInfo& info);

namespace {

// Where a slot's thread is, in this process (agent memory: a rollback does
// not undo it).
enum class State : uint32_t {
  None = 0,     // no thread for this slot in this process
  Idle = 1,     // waits for a start routine, its context saved
  Running = 2,  // given a start routine in this execution
  Parked = 3,   // its thread ended (or none ran): its kernel thread idles as a
                // carrier (Runtime::carrier_idle), off the slot's stack
  Gone = 4,     // exited for real (pthread_exit): nothing will bring it back
};

constexpr size_t kParkStack = 64 * 1024;

struct Private {
  int owner_pid = 0;  // the process the threads below exist in
  bool runner = false;
  struct Slot {
    SavedContext ctx;
    std::atomic<uint32_t> state{0};
    // all_parked waits for this slot's thread to park (a wake-up is a
    // system call: made only when someone waits).
    std::atomic<uint32_t> watched{0};
    // Started on another kernel thread (resume_start): its own kernel thread
    // still has every signal blocked; the creator's mask is set when the
    // thread first goes home (went_home).
    bool away = false;
    void* robust_head = nullptr;
    size_t robust_len = 0;
    int tid = 0;  // of the thread made in the fork server (confirms the tid word)
    alignas(16) uint8_t stack[kParkStack];
  } slots[kSlots];
};

// The program-memory side (restored with the program's memory).
struct Slot {
  std::atomic<uint32_t> assigned{0};  // futex: a start routine was given
  StartInfo info{};
  void* result = nullptr;
  bool ended = false;
  pthread_t handle = 0;
};

Private* priv = nullptr;
Slot slots[kSlots];
uint32_t next_slot = 0;  // slots given in this execution
// The slots' stacks, one mapping (a guard page under each stack).
uint8_t* stacks = nullptr;
size_t stack_size = 0;
bool stacks_ready = false;  // every slot's thread exists in the fork server
void (*call_tls_dtors)() = nullptr;
// pthread_key_create's destructors, for the ended thread's specific data.
constexpr unsigned kKeys = PTHREAD_KEYS_MAX;
void (*key_dtors[kKeys])(void*);
unsigned keys_used = 0;  // past the highest key with a destructor ever noted

thread_local uint32_t t_slot __attribute__((tls_model("initial-exec"))) = kNoSlot;
// started_unblocked(): set by slot_main for a start routine without a
// sanitizer's runtime before it (which may block signals with raw system
// calls before the first turn), read once.
thread_local bool t_started_unblocked __attribute__((tls_model("initial-exec"))) = false;

long futex(void* word, int op, uint32_t value) {
  return raw_syscall(SYS_futex, reinterpret_cast<long>(word), op, long(value), 0, 0, 0);
}

void block_signals() {
  uint64_t all = ~uint64_t(0);
  raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&all), 0, 8);
}

void set_state(uint32_t k, State s) { priv->slots[k].state.store(uint32_t(s), std::memory_order_release); }

inline void set_thread_pointer(uint64_t fs) { asm volatile("wrfsbase %0" : : "r"(fs) : "memory"); }

// For the transitions someone waits for: Idle (reserve, recreate).
void set_state_and_wake(uint32_t k, State s) {
  set_state(k, s);
  futex(&priv->slots[k].state, FUTEX_WAKE_PRIVATE, INT32_MAX);
}

// Waits for the slot's start routine. The context saved here is where the
// thread comes back to when it is given one after a rollback, and where a
// process restored from a live checkpoint recreates it.
__attribute__((noinline)) void idle_wait(uint32_t k) {
  if (ctrl_context_save(&priv->slots[k].ctx) == 0) {
    block_signals();
    set_state_and_wake(k, State::Idle);
  }
  while (slots[k].assigned.load(std::memory_order_acquire) == 0) futex(&slots[k].assigned, FUTEX_WAIT_PRIVATE, 0);
}

// Runs the thread's thread-local and thread-specific destructors, as libc
// does when a start routine returns.
void run_destructors() {
  if (call_tls_dtors) call_tls_dtors();
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; ++round) {
    bool called = false;
    for (unsigned key = 0; key < keys_used; ++key) {
      void (*dtor)(void*) = key_dtors[key];
      if (!dtor) continue;
      void* value = pthread_getspecific(key);
      if (!value) continue;
      pthread_setspecific(key, nullptr);
      dtor(value);
      called = true;
    }
    if (!called) break;
  }
}

// `apply` false: the same bytes are written to the stack all the same. What
// runs on the slot's stack before the start routine must not depend on
// which kernel thread started it: spin detection hashes the stale bytes
// below a thread's frames (LoopState.h), and the SAT search keys reads by
// that hash across executions.
__attribute__((noinline)) void set_start_mask(uint32_t k, bool apply = true) {
  volatile uint64_t mask = slots[k].info.sigmask & ~managed_signal_set();
  if (apply) raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&mask), 0, 8);
}

void* slot_main(void* arg) {
  uint32_t k = uint32_t(reinterpret_cast<uintptr_t>(arg));
  t_slot = k;
  block_signals();
  Private::Slot& p = priv->slots[k];
  raw_syscall(SYS_get_robust_list, 0, reinterpret_cast<long>(&p.robust_head), reinterpret_cast<long>(&p.robust_len));
  p.tid = int(raw_syscall(SYS_gettid));
  idle_wait(k);
  Slot& s = slots[k];
  set_state(k, State::Running);
  // The creator's mask, as a new thread inherits it, with the managed
  // signals unblocked at once (prepare_thread_signals would at the first turn).
  // Started on another kernel thread: that one's mask, whose managed signals
  // are unblocked, serves until the thread goes home (went_home).
  set_start_mask(k, !p.away);
  t_started_unblocked = s.info.runtime_fn == nullptr;
  void* result = run_controlled(s.info);
  s.result = result;
  bool last = rt.thread_exit(s.info.index, reinterpret_cast<uint64_t>(s.info.fn), [] {
    run_destructors();
    slots[t_slot].ended = true;
  });
  // libc ends the process when its last thread returns (the main thread
  // called pthread_exit).
  if (last) exit(0);
  park_for_rollback(k);
}

// Its thread ended (or was ended): the kernel thread idles as its carrier
// does, until the slot is taken again after a rollback (not at the
// rollback: at most one wake-up per execution, as for a new thread) or a
// carrier starts the new thread itself (resume_start).
[[noreturn]] void parked(void* arg) {
  uint32_t k = uint32_t(reinterpret_cast<uintptr_t>(arg));
  block_signals();
  note_parked(k);
  rt.carrier_idle(1 + k);
}

constexpr unsigned long kThreadFlags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                                       CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
constexpr uint32_t kRseqSig = 0x53053053;

// First code of a slot's thread recreated in this process, on the agent's
// stack for it: the kernel's part of the thread (rseq, robust list), then
// the idle wait its context was saved in (in the fork server).
[[noreturn]] void recreated(void* arg) {
  uint32_t k = uint32_t(reinterpret_cast<uintptr_t>(arg));
  Private::Slot& p = priv->slots[k];
  uint64_t fs_base = uint64_t(slots[k].handle);
  if (__rseq_size > 0) {
    // glibc registers the whole area (32 bytes) and may export a smaller
    // feature size.
    long area = long(fs_base + uint64_t(__rseq_offset));
    if (raw_syscall(SYS_rseq, area, 32, 0, kRseqSig) != 0 && __rseq_size > 32)
      raw_syscall(SYS_rseq, area, long(__rseq_size), 0, kRseqSig);
  }
  if (p.robust_head) raw_syscall(SYS_set_robust_list, reinterpret_cast<long>(p.robust_head), long(p.robust_len));
  set_state_and_wake(k, State::Idle);
  ctrl_context_resume(&p.ctx);
}

// The slot's thread of the fork server, again in this process: same
// descriptor, stack and TLS, without libc (which allocates nothing then,
// and still counts the thread as alive: the fork server forks with _Fork).
bool recreate(uint32_t k) {
  uint64_t all = ~uint64_t(0), saved = 0;
  raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&all), reinterpret_cast<long>(&saved), 8);
  int* tid_word = reinterpret_cast<int*>(uint64_t(slots[k].handle) + uint64_t(Runtime::tid_offset()));
  Private::Slot& p = priv->slots[k];
  p.state.store(uint32_t(State::Running), std::memory_order_relaxed);
  long tid = ctrl_clone_thread(kThreadFlags, p.stack + kParkStack, tid_word, tid_word, uint64_t(slots[k].handle),
                               recreated, reinterpret_cast<void*>(uintptr_t(k)));
  raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&saved), 0, 8);
  if (tid <= 0) {
    p.state.store(uint32_t(State::None), std::memory_order_relaxed);
    return false;
  }
  for (uint32_t st; (st = p.state.load(std::memory_order_acquire)) != uint32_t(State::Idle);)
    futex(&p.state, FUTEX_WAIT_PRIVATE, st);
  return true;
}

// This process's own pool: the threads of the process it was forked from
// are not here.
void adopt_pool() {
  int pid = int(own_pid());
  if (priv->owner_pid == pid) return;
  priv->owner_pid = pid;
  priv->runner = false;
  for (auto& p : priv->slots) p.state.store(uint32_t(State::None), std::memory_order_relaxed);
}

bool create_thread(uint32_t k, pthread_t* handle) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  uint8_t* base = stacks + k * (stack_size + 4096) + 4096;
  bool ok = pthread_attr_setstack(&attr, base, stack_size) == 0 &&
            real.pthread_create(handle, &attr, slot_main, reinterpret_cast<void*>(uintptr_t(k))) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

}  // namespace

bool reserve() {
  pthread_attr_t attr;
  size_t size = 0;
  if (pthread_getattr_default_np(&attr) == 0) {
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
  }
  if (size < size_t(PTHREAD_STACK_MIN)) size = 8 << 20;
  stack_size = (size + 4095) & ~size_t(4095);
  size_t total = kSlots * (stack_size + 4096);
  void* m =
      mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m == MAP_FAILED) return false;
  void* p = mmap(nullptr, sizeof(Private), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    munmap(m, total);
    return false;
  }
  stacks = static_cast<uint8_t*>(m);
  // Nobody's own memory until a thread takes its slot (OwnMemory.h).
  own_memory::add_unowned({reinterpret_cast<uint64_t>(m), reinterpret_cast<uint64_t>(m) + total});
  for (uint32_t k = 0; k < kSlots; ++k) mprotect(stacks + k * (stack_size + 4096), 4096, PROT_NONE);
  priv = new (p) Private;
  call_tls_dtors = reinterpret_cast<void (*)()>(dlvsym(RTLD_DEFAULT, "__call_tls_dtors", "GLIBC_PRIVATE"));
  if (Runtime::tid_offset() < 0) return false;
  // Created here, in the fork server, with libc: what libc allocates for
  // them (their TLS's vectors) is then part of every execution's start.
  // Each saves its context in its idle wait and sleeps there.
  priv->owner_pid = int(own_pid());
  for (uint32_t k = 0; k < kSlots; ++k) {
    Private::Slot& slot = priv->slots[k];
    slot.state.store(uint32_t(State::Running), std::memory_order_relaxed);
    if (!create_thread(k, &slots[k].handle)) {
      slot.state.store(uint32_t(State::None), std::memory_order_relaxed);
      return false;
    }
    for (uint32_t st; (st = slot.state.load(std::memory_order_acquire)) != uint32_t(State::Idle);)
      futex(&slot.state, FUTEX_WAIT_PRIVATE, st);
  }
  // The main thread's tid may also match another word of its descriptor
  // (TidWord.h); the offset recreate() gives the kernel must be the one
  // every thread's descriptor agrees on.
  const char* pds[kSlots];
  int tids[kSlots];
  for (uint32_t k = 0; k < kSlots; ++k) {
    pds[k] = reinterpret_cast<const char*>(slots[k].handle);
    tids[k] = priv->slots[k].tid;
  }
  Runtime::confirm_tid_word(pds, tids, int(kSlots));
  if (Runtime::tid_offset() < 0) return false;
  stacks_ready = true;
  return true;
}

MemoryRange private_range() {
  if (!priv) return MemoryRange{0, 0};
  uint64_t start = reinterpret_cast<uint64_t>(priv);
  return MemoryRange{start, start + ((sizeof(Private) + 4095) & ~uint64_t(4095))};
}

bool start_runner() {
  if (!stacks_ready) return false;
  adopt_pool();
  priv->runner = true;
  for (uint32_t k = 0; k < kSlots; ++k)
    if (!recreate(k)) return false;
  return true;
}

bool active() { return stacks_ready; }

bool eligible(const pthread_attr_t* attr) {
  if (!stacks_ready) return false;
  if (!attr) return true;
  void* addr = nullptr;
  size_t size = 0, guard = 0;
  int inherit = PTHREAD_INHERIT_SCHED, scope = PTHREAD_SCOPE_SYSTEM;
  sigset_t mask;
  // Without a stack of the program's, libc computes the address as 0 minus
  // the size: an address no user stack has.
  if (pthread_attr_getstack(attr, &addr, &size) != 0) return false;
  if (addr && uintptr_t(addr) < (uintptr_t(1) << 47)) return false;
  if (pthread_attr_getstacksize(attr, &size) != 0 || size != stack_size) return false;
  if (pthread_attr_getguardsize(attr, &guard) != 0 || guard != size_t(getpagesize())) return false;
  if (pthread_attr_getinheritsched(attr, &inherit) != 0 || inherit != PTHREAD_INHERIT_SCHED) return false;
  if (pthread_attr_getscope(attr, &scope) != 0 || scope != PTHREAD_SCOPE_SYSTEM) return false;
  if (pthread_attr_getsigmask_np(attr, &mask) != PTHREAD_ATTR_NO_SIGMASK_NP) return false;
  return true;
}

uint32_t start(const StartInfo& info, pthread_t* thread, bool wake_now) {
  if (!stacks_ready || next_slot >= kSlots) return kNoSlot;
  uint32_t k = next_slot;
  Slot& s = slots[k];
  adopt_pool();
  Private::Slot& p = priv->slots[k];
  if (p.state.load(std::memory_order_acquire) == uint32_t(State::None)) {
    // In a runner that cannot be undone: the rollback is refused.
    if (priv->runner) rollback::taint("a recycled thread had to be recreated during the execution");
    if (!recreate(k)) return kNoSlot;
  }
  s.info = info;
  s.result = nullptr;
  s.ended = false;
  s.assigned.store(1, std::memory_order_release);
  if (wake_now) wake(k);
  ++next_slot;
  *thread = s.handle;
  return k;
}

void wake(uint32_t slot) {
  // Idle since it was recreated, or parked since a rollback. Running from
  // here on, not from when it runs: a rollback must wait for it.
  if (priv->slots[slot].state.load(std::memory_order_acquire) == uint32_t(State::Parked)) {
    priv->slots[slot].away = false;
    set_state(slot, State::Running);
    rt.start_at_home(1 + slot);
  } else {
    set_state(slot, State::Running);
    futex(&slots[slot].assigned, FUTEX_WAKE_PRIVATE, 1);
  }
}

uint32_t slot_of(uint64_t handle) {
  if (handle == 0) return kNoSlot;
  for (uint32_t k = 0; k < next_slot; ++k)
    if (uint64_t(slots[k].handle) == handle) return k;
  return kNoSlot;
}

void* result(uint32_t slot) { return slots[slot].result; }
bool ended(uint32_t slot) { return slots[slot].ended; }
uint32_t my_slot() { return t_slot; }

bool started_unblocked() {
  bool was = t_started_unblocked;
  t_started_unblocked = false;
  return was;
}

void note_key(unsigned key, void (*dtor)(void*)) {
  if (key >= kKeys) return;
  key_dtors[key] = dtor;
  if (dtor && key >= keys_used) keys_used = key + 1;
}

void note_exit(uint32_t slot, void* value) {
  slots[slot].result = value;
  if (priv && priv->owner_pid == int(own_pid())) {
    set_state(slot, State::Gone);
    if (priv->runner) rollback::taint("a recycled thread ended with pthread_exit");
  }
}

void park_for_rollback(uint32_t slot) {
  t_me = kNoThread;
  if (!priv || priv->owner_pid != int(own_pid())) {
    // Not the runner: nothing will resume it; the process's end ends it.
    block_signals();
    static uint32_t never = 0;
    for (;;) futex(&never, FUTEX_WAIT_PRIVATE, 0);
  }
  ctrl_call_on_stack(parked, reinterpret_cast<void*>(uintptr_t(slot)), priv->slots[slot].stack + kParkStack);
}

bool all_parked() {
  if (!priv || !priv->runner || priv->owner_pid != int(own_pid())) return next_slot == 0;
  for (uint32_t k = 0; k < kSlots; ++k) {
    Private::Slot& p = priv->slots[k];
    for (uint32_t s; (s = p.state.load(std::memory_order_seq_cst)) == uint32_t(State::Running);) {
      p.watched.store(1, std::memory_order_seq_cst);
      if (p.state.load(std::memory_order_seq_cst) == s) futex(&p.state, FUTEX_WAIT_PRIVATE, s);
    }
    uint32_t s = p.state.load(std::memory_order_acquire);
    if (s != uint32_t(State::Idle) && s != uint32_t(State::Parked)) return false;
  }
  return true;
}

void note_parked(uint32_t slot) {
  Private::Slot& p = priv->slots[slot];
  // Sequentially consistent, as all_parked's side: either it sees Parked,
  // or this sees that it waits.
  p.state.store(uint32_t(State::Parked), std::memory_order_seq_cst);
  if (p.watched.exchange(0, std::memory_order_seq_cst)) futex(&p.state, FUTEX_WAKE_PRIVATE, INT32_MAX);
}

bool can_start_away(uint32_t slot) {
  return priv && priv->runner && priv->owner_pid == int(own_pid()) &&
         priv->slots[slot].state.load(std::memory_order_acquire) == uint32_t(State::Parked) &&
         slots[slot].info.runtime_fn == nullptr;
}

void resume_start(uint32_t slot, bool away) {
  Private::Slot& p = priv->slots[slot];
  p.away = away;
  set_state(slot, State::Running);
  set_thread_pointer(uint64_t(slots[slot].handle));
  ctrl_context_resume(&p.ctx);
}

void went_home(uint32_t slot) {
  Private::Slot& p = priv->slots[slot];
  if (!p.away) return;
  p.away = false;
  set_start_mask(slot);
}

bool ends_away(uint32_t slot) { return priv && priv->runner && priv->owner_pid == int(own_pid()) && slot < kSlots; }

int idle_threads() {
  if (!priv || priv->owner_pid != int(own_pid())) return 0;
  int n = 0;
  for (uint32_t k = 0; k < kSlots; ++k) {
    uint32_t s = priv->slots[k].state.load(std::memory_order_acquire);
    if (s == uint32_t(State::Idle) || s == uint32_t(State::Parked) || (s == uint32_t(State::Running) && slots[k].ended))
      ++n;
  }
  return n;
}

}  // namespace ctrl::agent::thread_pool
