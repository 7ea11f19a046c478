// pthread and semaphore entry points. Each one, for a controlled thread:
// registers the object with the model on first sight, waits for its turn
// (Runtime::begin), performs the operation (for real where the real call
// cannot block any more, in the model alone for conditions and barriers),
// updates the model and logs the event.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "LoopState.h"
#include "OwnMemory.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Runtime.h"
#include "SanitizerRuntime.h"
#include "ThreadPool.h"

using namespace ctrl;
using namespace ctrl::agent;

namespace ctrl::agent::thread_pool {

namespace {

void* controlled_start(const StartInfo& info);

// The start of the calling thread while a sanitizer's start routine runs
// before its first turn (SanitizerRuntime.h).
thread_local const StartInfo* t_start __attribute__((tls_model("initial-exec"))) = nullptr;

// What the sanitizer's start routine calls in place of the program's.
void* sanitizer_entry(void*) { return controlled_start(*t_start); }

}  // namespace

void* run_controlled(const StartInfo& info) {
  if (info.runtime_fn) {
    // Uncontrolled (t_me not set yet) until the runtime calls the entry.
    t_start = &info;
    return info.runtime_fn(info.runtime_arg);
  }
  return controlled_start(info);
}

namespace {

void* controlled_start(const StartInfo& info) {
  t_me = info.index;
  rt.first_turn(info.index);
  // The start routine's frames are below this one. (Its stack's bounds come
  // from the heap-using pthread_getattr_np: only now that it is this
  // thread's turn. Its heap blocks set up the thread's malloc cache here, at
  // a place the schedule fixes: c11.spsc_queue_fixed found a false
  // uninitialised load when a slot's bounds were taken without it.)
  {
    uint64_t top = reinterpret_cast<uint64_t>(__builtin_frame_address(0)), low = top, end = top;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* stack = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &stack, &size) == 0) {
        low = reinterpret_cast<uint64_t>(stack);
        end = low + size;
      }
      pthread_attr_destroy(&attr);
    }
    set_stack(low, top);
    // The whole block is its own (OwnMemory.h): glibc keeps the thread's
    // static TLS and descriptor at its top.
    if (low < top && top <= end) own_memory::set_thread({low, end});
  }
  return info.fn(info.arg);
}

}  // namespace

void* (*sanitizer_entry_point())(void*) { return sanitizer_entry; }

}  // namespace ctrl::agent::thread_pool

#define SITE() CTRL_CALLER_SITE()

namespace {

uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

MutexType mutex_type(const pthread_mutex_t* m) {
  switch (m->__data.__kind & 3) {
    case PTHREAD_MUTEX_RECURSIVE:
      return MutexType::Recursive;
    case PTHREAD_MUTEX_ERRORCHECK:
      return MutexType::ErrorCheck;
    default:
      return MutexType::Normal;
  }
}

// After the process decided to exit, threads are no longer scheduled; one
// that would block on a parked thread would keep the process alive forever
// (a library's destructor that signals and joins its worker, as libuv's
// does, runs after the agent's). The standard streams are flushed first, as
// exit would have: the rest of exit (later destructors, other streams) is
// what a native run would do after the worker ended, and is skipped. A
// stream whose lock a parked thread holds is left as it is.
[[noreturn]] void exit_instead_of_blocking() {
  for (FILE* f : {stdout, stderr})
    if (ftrylockfile(f) == 0) {
      fflush_unlocked(f);
      funlockfile(f);
    }
  real._exit(rt.region.header ? rt.region.header->exit_status : 0);
}

// The model signals its own waiters; a thread it does not know (one a
// library's constructor started before the agent was initialised) waits on
// the real condition variable, and must be woken too (for the threads the
// model parks, this is a wake-up of nobody).
void wake_unmodelled_waiters(pthread_cond_t* c, bool all) {
  if (all)
    real.pthread_cond_broadcast(c);
  else
    real.pthread_cond_signal(c);
}

using thread_pool::StartInfo;

// One slot per thread index: a new thread must not touch the heap before its
// first turn (its first free() sets up its malloc cache while others run).
StartInfo start_infos[shm::kMaxThreads];

// A real thread (no slot of the pool was free for it, ThreadPool.h).
void* thread_trampoline(void* p) {
  StartInfo info = *static_cast<StartInfo*>(p);
  void* result = thread_pool::run_controlled(info);
  rt.thread_exit(info.index, reinterpret_cast<uint64_t>(info.fn));
  t_me = kNoThread;
  return result;
}

uint64_t signal_mask() {
  uint64_t mask = 0;
  raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, 0, reinterpret_cast<long>(&mask), 8);
  return mask;
}

// Mutex acquisition shared by lock, trylock and the timed variants.
int mutex_acquire(pthread_mutex_t* m, OpKind kind, uint64_t site) {
  uint32_t me = t_me;
  rt.model.mutex_seen(addr_of(m), mutex_type(m));
  bool blocking = kind == OpKind::MutexLock;
  rt.begin(me, PendingOp{kind, addr_of(m), 0, site, kNoThread, !blocking});
  int r;
  if (rt.model.mutex_can_lock(me, addr_of(m))) {
    r = blocking ? real.pthread_mutex_lock(m) : real.pthread_mutex_trylock(m);
    if (r == 0) rt.model.mutex_locked(me, addr_of(m));
  } else {
    r = kind == OpKind::MutexTryLock ? EBUSY : ETIMEDOUT;
  }
  rt.log(me, kind, addr_of(m), site, 0, 0, uint64_t(r), 0, MemOrder::NotAtomic, RmwOp::None,
         r ? shm::kFailed : 0);
  return r;
}

int cond_wait(pthread_cond_t* c, pthread_mutex_t* m, bool timed, uint64_t site) {
  uint32_t me = t_me;
  OpKind kind = timed ? OpKind::CondTimedWait : OpKind::CondWait;
  rt.begin(me, PendingOp{kind, addr_of(c), addr_of(m), site});
  real.pthread_mutex_unlock(m);
  rt.model.cond_wait_begin(me, addr_of(c), addr_of(m), timed, site);
  rt.log(me, kind, addr_of(c), site, 0, 0, addr_of(m));
  // Wait for a signal (or a time-out) and the mutex, as one more step.
  PendingOp again = rt.model.thread(me).pending;
  rt.begin(me, again);
  bool woken = rt.model.thread(me).signalled;
  real.pthread_mutex_lock(m);
  rt.model.mutex_locked(me, addr_of(m));
  int r = woken ? 0 : ETIMEDOUT;
  rt.log(me, OpKind::CondReacquire, addr_of(c), site, 0, 0, addr_of(m), 0, MemOrder::NotAtomic, RmwOp::None,
         woken ? 0 : uint8_t(shm::kTimedOut));
  return r;
}

int rw_acquire(pthread_rwlock_t* l, OpKind kind, bool write, uint64_t site) {
  uint32_t me = t_me;
  bool blocking = kind == OpKind::RwReadLock || kind == OpKind::RwWriteLock;
  rt.begin(me, PendingOp{kind, addr_of(l), 0, site, kNoThread, !blocking});
  bool can = write ? rt.model.rw_can_write(addr_of(l)) : rt.model.rw_can_read(addr_of(l));
  int r;
  if (can) {
    r = write ? real.pthread_rwlock_wrlock(l) : real.pthread_rwlock_rdlock(l);
    if (r == 0) {
      if (write)
        rt.model.rw_write_locked(me, addr_of(l));
      else
        rt.model.rw_read_locked(me, addr_of(l));
    }
  } else {
    bool is_try = kind == OpKind::RwTryReadLock || kind == OpKind::RwTryWriteLock;
    r = is_try ? EBUSY : ETIMEDOUT;
  }
  rt.log(me, kind, addr_of(l), site, 0, 0, uint64_t(r), 0, MemOrder::NotAtomic, RmwOp::None,
         r ? shm::kFailed : 0);
  return r;
}

int sem_acquire(sem_t* s, OpKind kind, uint64_t site) {
  uint32_t me = t_me;
  int value = 0;
  real.sem_getvalue(s, &value);
  rt.model.sem_seen(addr_of(s), value);
  rt.begin(me, PendingOp{kind, addr_of(s), 0, site, kNoThread, kind != OpKind::SemWait});
  int r;
  int err = 0;
  if (rt.model.sem_available(addr_of(s))) {
    r = real.sem_trywait(s);
    if (r == 0) rt.model.sem_acquired(addr_of(s));
    else err = errno;
  } else {
    r = -1;
    err = kind == OpKind::SemTryWait ? EAGAIN : ETIMEDOUT;
  }
  rt.log(me, kind, addr_of(s), site, 0, 0, uint64_t(err), 0, MemOrder::NotAtomic, RmwOp::None,
         r ? shm::kFailed : 0);
  if (r) errno = err;
  return r;
}

}  // namespace

extern "C" {

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_create(thread, attr, fn, arg);
  // A sanitizer's own thread (TSan's background thread) is not the program's.
  if (sanitizer::internal_thread(site)) return sanitizer::start_internal_thread(thread, attr, fn, arg);
  if (!rt.checkpointed) rt.checkpoint(site);
  if (!rt.enabled) return real.pthread_create(thread, attr, fn, arg);  // another process is the fork server
  uint32_t me = t_me;
  rt.begin(me, PendingOp{OpKind::ThreadCreate, 0, 0, site});
  uint32_t child = rt.model.add_thread(me);
  if (child == kNoThread)
    rt.end_execution(shm::Outcome::Unsupported, me, site,
                     "the program has more than 64 threads that are running, detached or not joined by their "
                     "creator");
  if (child != kNoThread && child >= rt.memory->max_threads())
    rt.end_execution(shm::Outcome::Unsupported, me, site, rt.memory->too_many_threads());
  // TSan's interceptor waits until the new thread ran its start routine's
  // prologue: the thread runs it at once, then waits for its first turn.
  sanitizer::ProgramStart program{fn, arg};
  bool wrapped = sanitizer::take_wrapped_start(fn, arg, thread_pool::sanitizer_entry_point(), &program);
  rt.model.thread(child).pending.site = reinterpret_cast<uint64_t>(program.fn);
  rt.region.header->threads[child].start_routine = reinterpret_cast<uint64_t>(program.fn);
  StartInfo start_info{program.fn, program.arg, child, signal_mask()};
  if (wrapped) {
    start_info.runtime_fn = fn;
    start_info.runtime_arg = arg;
  }
  int r = 0;
  uint32_t slot = thread_pool::kNoSlot;
  if (thread_pool::eligible(attr)) {
    bool wake_now = wrapped || !rt.may_defer_start();
    slot = thread_pool::start(start_info, thread, wake_now);
    if (slot != thread_pool::kNoSlot && !wake_now) rt.defer_start(child, slot);
  }
  if (slot == thread_pool::kNoSlot) {
    StartInfo* info = &start_infos[child];
    *info = start_info;
    r = real.pthread_create(thread, attr, thread_trampoline, info);
  }
  if (r == 0) {
    rt.model.thread_named(child, uint64_t(*thread));
    int state = PTHREAD_CREATE_JOINABLE;
    if (attr && pthread_attr_getdetachstate(attr, &state) == 0 && state == PTHREAD_CREATE_DETACHED)
      rt.model.thread_detached(child);
  } else {
    rt.model.thread_finished(child);
  }
  rt.log(me, OpKind::ThreadCreate, 0, site, 0, 0, child, 0, MemOrder::NotAtomic, RmwOp::None,
         r ? shm::kFailed : 0);
  rt.publish(child);
  return r;
}

int pthread_join(pthread_t thread, void** result) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) {
    // After the exit (a library's destructor joining its worker): a thread
    // the model parked never ends by itself.
    if (rt.ended && t_me != kNoThread && !t_in_agent) {
      uint32_t target = rt.model.find_by_handle(uint64_t(thread));
      uint32_t slot = thread_pool::slot_of(uint64_t(thread));
      bool parked = target != kNoThread && (slot != thread_pool::kNoSlot ? !thread_pool::ended(slot)
                                                                          : !rt.model.thread(target).finished);
      if (parked) exit_instead_of_blocking();
    }
    return real.pthread_join(thread, result);
  }
  uint32_t me = t_me;
  uint32_t target = rt.model.find_by_handle(uint64_t(thread));
  if (target == kNoThread) return real.pthread_join(thread, result);
  rt.begin(me, PendingOp{OpKind::ThreadJoin, 0, 0, site, target});
  // A slot's thread does not exit: its result is kept (ThreadPool.h).
  uint32_t slot = thread_pool::slot_of(uint64_t(thread));
  if (slot != thread_pool::kNoSlot && result) *result = thread_pool::result(slot);
  int r = slot != thread_pool::kNoSlot ? 0 : real.pthread_join(thread, result);
  if (r == 0) rt.model.thread_joined(target, me);
  rt.log(me, OpKind::ThreadJoin, 0, site, 0, 0, target);
  return r;
}

int pthread_detach(pthread_t thread) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_detach(thread);
  uint32_t me = t_me;
  uint32_t target = rt.model.find_by_handle(uint64_t(thread));
  rt.begin(me, PendingOp{OpKind::ThreadDetach, 0, 0, site, target});
  int r = thread_pool::slot_of(uint64_t(thread)) != thread_pool::kNoSlot ? 0 : real.pthread_detach(thread);
  if (target != kNoThread && r == 0) rt.model.thread_detached(target);
  rt.log(me, OpKind::ThreadDetach, 0, site, 0, 0, target);
  return r;
}

// Recorded for the pool's threads, which run the destructors themselves.
int pthread_key_create(pthread_key_t* key, void (*dtor)(void*)) {
  static auto real_key_create =
      reinterpret_cast<int (*)(pthread_key_t*, void (*)(void*))>(dlsym(RTLD_NEXT, "pthread_key_create"));
  int r = real_key_create(key, dtor);
  if (r == 0) thread_pool::note_key(*key, dtor);
  return r;
}

int pthread_key_delete(pthread_key_t key) {
  static auto real_key_delete = reinterpret_cast<int (*)(pthread_key_t)>(dlsym(RTLD_NEXT, "pthread_key_delete"));
  int r = real_key_delete(key);
  if (r == 0) thread_pool::note_key(key, nullptr);
  return r;
}

// A slot's thread never exits: whether it ended is the pool's to say.
int pthread_tryjoin_np(pthread_t thread, void** result) {
  static auto real_tryjoin = reinterpret_cast<int (*)(pthread_t, void**)>(dlsym(RTLD_NEXT, "pthread_tryjoin_np"));
  uint32_t slot = thread_pool::slot_of(uint64_t(thread));
  if (slot == thread_pool::kNoSlot) return real_tryjoin(thread, result);
  if (!thread_pool::ended(slot)) return EBUSY;
  if (result) *result = thread_pool::result(slot);
  uint32_t target = rt.model.find_by_handle(uint64_t(thread));
  if (rt.controlled() && target != kNoThread) rt.model.thread_joined(target, t_me);
  return 0;
}

int pthread_timedjoin_np(pthread_t thread, void** result, const struct timespec* deadline) {
  static auto real_timedjoin =
      reinterpret_cast<int (*)(pthread_t, void**, const timespec*)>(dlsym(RTLD_NEXT, "pthread_timedjoin_np"));
  if (thread_pool::slot_of(uint64_t(thread)) == thread_pool::kNoSlot) return real_timedjoin(thread, result, deadline);
  return pthread_join(thread, result);
}

void pthread_exit(void* result) {
  ensure_real();
  uint64_t site = SITE();
  if (rt.controlled()) {
    uint32_t me = t_me;
    uint32_t slot = thread_pool::my_slot();
    if (slot != thread_pool::kNoSlot) thread_pool::note_exit(slot, result);
    bool last = rt.thread_exit(me, site);
    t_me = kNoThread;
    // libc ends the process when its last thread exits, and counts the
    // pool's threads (ThreadPool.h) among them.
    if (last && thread_pool::active()) exit(0);
  }
  real.pthread_exit(result);
}

int pthread_mutex_lock(pthread_mutex_t* m) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) {
    if (rt.ended && t_me != kNoThread && !t_in_agent && !rt.model.mutex_can_lock(t_me, addr_of(m)))
      exit_instead_of_blocking();
    return real.pthread_mutex_lock(m);
  }
  return mutex_acquire(m, OpKind::MutexLock, site);
}

int pthread_mutex_trylock(pthread_mutex_t* m) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_mutex_trylock(m);
  return mutex_acquire(m, OpKind::MutexTryLock, site);
}

int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_mutex_timedlock(m, t);
  return mutex_acquire(m, OpKind::MutexTimedLock, site);
}

int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_mutex_clocklock(m, clock, t);
  return mutex_acquire(m, OpKind::MutexTimedLock, site);
}

int pthread_mutex_unlock(pthread_mutex_t* m) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) {
    if (t_me != kNoThread && !t_in_agent && rt.enabled) rt.model.mutex_unlocked(t_me, addr_of(m));
    return real.pthread_mutex_unlock(m);
  }
  uint32_t me = t_me;
  rt.model.mutex_seen(addr_of(m), mutex_type(m));
  rt.begin(me, PendingOp{OpKind::MutexUnlock, addr_of(m), 0, site});
  int r = real.pthread_mutex_unlock(m);
  if (r == 0) rt.model.mutex_unlocked(me, addr_of(m));
  rt.log(me, OpKind::MutexUnlock, addr_of(m), site, 0, 0, uint64_t(r));
  return r;
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) {
    if (rt.ended && t_me != kNoThread && !t_in_agent) exit_instead_of_blocking();
    return real.pthread_cond_wait(c, m);
  }
  return cond_wait(c, m, false, site);
}

int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* abstime) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_cond_timedwait(c, m, abstime);
  return cond_wait(c, m, true, site);
}

int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const struct timespec* abstime) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_cond_clockwait(c, m, clock, abstime);
  return cond_wait(c, m, true, site);
}

int pthread_cond_signal(pthread_cond_t* c) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_cond_signal(c);
  uint32_t me = t_me;
  rt.begin(me, PendingOp{OpKind::CondSignal, addr_of(c), 0, site});
  uint32_t woken = rt.model.cond_signal(addr_of(c));
  wake_unmodelled_waiters(c, false);
  rt.log(me, OpKind::CondSignal, addr_of(c), site, 0, 0, woken);
  return 0;
}

int pthread_cond_broadcast(pthread_cond_t* c) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_cond_broadcast(c);
  uint32_t me = t_me;
  rt.begin(me, PendingOp{OpKind::CondBroadcast, addr_of(c), 0, site});
  uint32_t n = rt.model.cond_broadcast(addr_of(c));
  wake_unmodelled_waiters(c, true);
  rt.log(me, OpKind::CondBroadcast, addr_of(c), site, 0, 0, n);
  return 0;
}

int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_rdlock(l);
  return rw_acquire(l, OpKind::RwReadLock, false, site);
}

int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_wrlock(l);
  return rw_acquire(l, OpKind::RwWriteLock, true, site);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_tryrdlock(l);
  return rw_acquire(l, OpKind::RwTryReadLock, false, site);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_trywrlock(l);
  return rw_acquire(l, OpKind::RwTryWriteLock, true, site);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_timedrdlock(l, t);
  return rw_acquire(l, OpKind::RwTimedReadLock, false, site);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_timedwrlock(l, t);
  return rw_acquire(l, OpKind::RwTimedWriteLock, true, site);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_clockrdlock(l, clock, t);
  return rw_acquire(l, OpKind::RwTimedReadLock, false, site);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_clockwrlock(l, clock, t);
  return rw_acquire(l, OpKind::RwTimedWriteLock, true, site);
}

int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_rwlock_unlock(l);
  uint32_t me = t_me;
  rt.begin(me, PendingOp{OpKind::RwUnlock, addr_of(l), 0, site});
  int r = real.pthread_rwlock_unlock(l);
  if (r == 0) rt.model.rw_unlocked(me, addr_of(l));
  rt.log(me, OpKind::RwUnlock, addr_of(l), site, 0, 0, uint64_t(r));
  return r;
}

int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr, unsigned count) {
  ensure_real();
  int r = real.pthread_barrier_init(b, attr, count);
  if (r == 0 && rt.enabled && !t_in_agent) rt.model.barrier_init(addr_of(b), count);
  return r;
}

int pthread_barrier_wait(pthread_barrier_t* b) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.pthread_barrier_wait(b);
  uint32_t me = t_me;
  rt.begin(me, PendingOp{OpKind::BarrierWait, addr_of(b), 0, site});
  // Both events log the generation (value read): see Dependence.h.
  uint64_t phase = rt.model.barrier_phase(addr_of(b));
  bool serial = rt.model.barrier_arrive(me, addr_of(b), site);
  rt.log(me, OpKind::BarrierWait, addr_of(b), site, phase, 0, serial);
  if (serial) return PTHREAD_BARRIER_SERIAL_THREAD;
  PendingOp leave = rt.model.thread(me).pending;
  rt.begin(me, leave);
  rt.log(me, OpKind::BarrierLeave, addr_of(b), site, phase);
  return 0;
}

int sem_init(sem_t* s, int pshared, unsigned value) {
  ensure_real();
  int r = real.sem_init(s, pshared, value);
  if (r == 0 && rt.enabled && !t_in_agent) rt.model.sem_init(addr_of(s), value);
  return r;
}

int sem_wait(sem_t* s) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) {
    if (rt.ended && t_me != kNoThread && !t_in_agent) {
      if (real.sem_trywait(s) != 0) exit_instead_of_blocking();
      return 0;
    }
    return real.sem_wait(s);
  }
  return sem_acquire(s, OpKind::SemWait, site);
}

int sem_trywait(sem_t* s) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.sem_trywait(s);
  return sem_acquire(s, OpKind::SemTryWait, site);
}

int sem_timedwait(sem_t* s, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.sem_timedwait(s, t);
  return sem_acquire(s, OpKind::SemTimedWait, site);
}

int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* t) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.sem_clockwait(s, clock, t);
  return sem_acquire(s, OpKind::SemTimedWait, site);
}

int sem_post(sem_t* s) {
  ensure_real();
  uint64_t site = SITE();
  if (!rt.controlled()) return real.sem_post(s);
  uint32_t me = t_me;
  int value = 0;
  real.sem_getvalue(s, &value);
  rt.model.sem_seen(addr_of(s), value);
  rt.begin(me, PendingOp{OpKind::SemPost, addr_of(s), 0, site});
  int r = real.sem_post(s);
  if (r == 0) rt.model.sem_posted(addr_of(s));
  rt.log(me, OpKind::SemPost, addr_of(s), site);
  return r;
}

}  // extern "C"
