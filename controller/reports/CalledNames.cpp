#include "reports/CalledNames.h"

namespace ctrl {

const char* called_name(OpKind kind) {
  switch (kind) {
    case OpKind::ThreadDetach:
      return "pthread_detach";
    case OpKind::MutexLock:
      return "pthread_mutex_lock";
    case OpKind::MutexTryLock:
      return "pthread_mutex_trylock";
    case OpKind::MutexTimedLock:
      return "pthread_mutex_timedlock";
    case OpKind::MutexUnlock:
      return "pthread_mutex_unlock";
    // Both halves of a wait: it releases the mutex and sleeps, then, woken,
    // takes the mutex back before the call returns.
    case OpKind::CondWait:
      return "pthread_cond_wait";
    case OpKind::CondTimedWait:
      return "pthread_cond_timedwait";
    case OpKind::CondReacquire:
      return "pthread_cond_wait";
    case OpKind::CondSignal:
      return "pthread_cond_signal";
    case OpKind::CondBroadcast:
      return "pthread_cond_broadcast";
    case OpKind::RwReadLock:
      return "pthread_rwlock_rdlock";
    case OpKind::RwWriteLock:
      return "pthread_rwlock_wrlock";
    case OpKind::RwTryReadLock:
      return "pthread_rwlock_tryrdlock";
    case OpKind::RwTryWriteLock:
      return "pthread_rwlock_trywrlock";
    case OpKind::RwTimedReadLock:
      return "pthread_rwlock_timedrdlock";
    case OpKind::RwTimedWriteLock:
      return "pthread_rwlock_timedwrlock";
    case OpKind::RwUnlock:
      return "pthread_rwlock_unlock";
    case OpKind::BarrierWait:
      return "pthread_barrier_wait";
    case OpKind::BarrierLeave:
      return "pthread_barrier_wait";
    default:
      return op_name(kind);
  }
}

}  // namespace ctrl
