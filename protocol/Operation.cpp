#include "Operation.h"

namespace ctrl {

const char* op_name(OpKind k) {
  switch (k) {
    case OpKind::None: return "none";
    case OpKind::ThreadStart: return "thread_start";
    case OpKind::ThreadCreate: return "pthread_create";
    case OpKind::ThreadJoin: return "pthread_join";
    case OpKind::ThreadExit: return "thread_exit";
    case OpKind::ThreadDetach: return "pthread_detach";
    case OpKind::MutexLock: return "mutex_lock";
    case OpKind::MutexTryLock: return "mutex_trylock";
    case OpKind::MutexTimedLock: return "mutex_timedlock";
    case OpKind::MutexUnlock: return "mutex_unlock";
    case OpKind::CondWait: return "cond_wait";
    case OpKind::CondTimedWait: return "cond_timedwait";
    case OpKind::CondReacquire: return "cond_wake";
    case OpKind::CondSignal: return "cond_signal";
    case OpKind::CondBroadcast: return "cond_broadcast";
    case OpKind::RwReadLock: return "rwlock_rdlock";
    case OpKind::RwWriteLock: return "rwlock_wrlock";
    case OpKind::RwTryReadLock: return "rwlock_tryrdlock";
    case OpKind::RwTryWriteLock: return "rwlock_trywrlock";
    case OpKind::RwTimedReadLock: return "rwlock_timedrdlock";
    case OpKind::RwTimedWriteLock: return "rwlock_timedwrlock";
    case OpKind::RwUnlock: return "rwlock_unlock";
    case OpKind::BarrierWait: return "barrier_wait";
    case OpKind::BarrierLeave: return "barrier_leave";
    case OpKind::SemWait: return "sem_wait";
    case OpKind::SemTryWait: return "sem_trywait";
    case OpKind::SemTimedWait: return "sem_timedwait";
    case OpKind::SemPost: return "sem_post";
    case OpKind::Yield: return "yield";
    case OpKind::AtomicLoad: return "atomic_load";
    case OpKind::AtomicStore: return "atomic_store";
    case OpKind::AtomicRmw: return "atomic_rmw";
    case OpKind::AtomicCas: return "atomic_cas";
    case OpKind::Fence: return "fence";
    case OpKind::ProcessExit: return "exit";
    case OpKind::Load: return "load";
    case OpKind::Store: return "store";
    case OpKind::Rmw: return "rmw";
    case OpKind::Flush: return "flush";
    case OpKind::FutexWait: return "futex_wait";
    case OpKind::FutexWake: return "futex_wake";
    case OpKind::FutexWoken: return "futex_wait_end";
    case OpKind::FutexRequeue: return "futex_requeue";
    case OpKind::FdWait: return "fd_wait";
    case OpKind::SignalWait: return "signal_wait";
    case OpKind::ChildWait: return "child_wait";
    case OpKind::SignalSend: return "signal_send";
    case OpKind::Count: break;
  }
  return "?";
}

const char* rmw_name(RmwOp op) {
  switch (op) {
    case RmwOp::None: return "";
    case RmwOp::Xchg: return "xchg";
    case RmwOp::Add: return "add";
    case RmwOp::Sub: return "sub";
    case RmwOp::And: return "and";
    case RmwOp::Or: return "or";
    case RmwOp::Xor: return "xor";
    case RmwOp::Nand: return "nand";
  }
  return "?";
}

const char* order_name(MemOrder o) {
  switch (o) {
    case MemOrder::Relaxed: return "relaxed";
    case MemOrder::Consume: return "consume";
    case MemOrder::Acquire: return "acquire";
    case MemOrder::Release: return "release";
    case MemOrder::AcqRel: return "acq_rel";
    case MemOrder::SeqCst: return "seq_cst";
    case MemOrder::NotAtomic: return "plain";
  }
  return "?";
}

}  // namespace ctrl
