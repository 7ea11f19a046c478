// When two operations of different threads do not commute: the dependence
// relation of the exploration (Mazurkiewicz, reads commuting). Shared by the
// controller's DPOR and the agent's sleep sets, so both agree exactly.
//
// Two operations conflict when
//  * they touch overlapping bytes and one of them writes (a failed
//    compare-exchange only reads);
//  * they act on the same synchronisation object (mutex, condition, rwlock,
//    semaphore, futex word; a condition wait also acts on its mutex, a
//    futex requeue on both words; a futex wait reads its word and, unless
//    it found another value, joins its queue);
//  * they arrive at the same barrier in the same generation (the last one
//    to arrive opens it: PTHREAD_BARRIER_SERIAL_THREAD);
//  * one joins a thread and the other is that thread's exit;
//  * one is the process exit (it ends every thread).
// Thread creation orders the child's start by happens-before, not by
// conflict, and the arrival that opened a barrier's generation orders the
// others' leaving it; yields, starts, barrier leaves and fences (under
// sequential consistency) commute with everything else. (A leave conflicting
// with the next generation's arrivals would order a thread still leaving
// round 1 after the other's arrival at round 2, and with it everything that
// thread did in between: interleavings were lost that way.)
#pragma once

#include <cstdint>

#include "Operation.h"
#include "SharedRegion.h"

namespace ctrl {

struct Access {
  uint64_t write_addr = 0, write_size = 0;
  uint64_t read_addr = 0, read_size = 0;
  uint64_t read2_addr = 0, read2_size = 0;  // the source of a string move
  uint64_t object = 0, object2 = 0;         // synchronisation objects (0: none)
  bool everything = false;                  // process exit
};

// Pseudo-object standing for a thread's termination (exit and joins of it).
inline uint64_t thread_object(uint32_t thread) { return (uint64_t(1) << 63) | thread; }

// Pseudo-object standing for one generation of a barrier (its arrivals).
// Generations 2^15 apart share one: a spurious conflict between arrivals
// that are ordered anyway.
inline uint64_t barrier_object(uint64_t barrier, uint64_t phase) {
  return (uint64_t(1) << 62) | ((phase & 0x7fff) << 47) | (barrier & ((uint64_t(1) << 47) - 1));
}

// Pseudo-objects of the kernel waits (agent/KernelWaits.h), coarse on
// purpose: every blocking descriptor operation, poll, select and epoll_wait
// acts on the one I/O object (which descriptor a poll or another thread's
// write makes ready is not tracked); every signal wait and send on the
// signal object; every wait for a child on the children object. Bit 61
// keeps them apart from barrier generations (bit 62), thread objects (bit
// 63) and real addresses (below 2^47).
inline constexpr uint64_t kIoObject = (uint64_t(1) << 61) | 1;
inline constexpr uint64_t kSignalObject = (uint64_t(1) << 61) | 2;
inline constexpr uint64_t kChildObject = (uint64_t(1) << 61) | 3;

inline bool ranges_overlap(uint64_t a, uint64_t as, uint64_t b, uint64_t bs) {
  return as && bs && a < b + bs && b < a + as;
}

// `failed`: a compare-exchange that did not write; `target`: the joined thread
// (ThreadJoin) or the exiting thread (ThreadExit); `aux`: the mutex of a
// condition wait, the source of a string move.
inline Access access_of(OpKind kind, uint64_t addr, uint32_t size, uint64_t aux, bool failed, uint32_t target,
                        bool instruction) {
  Access a;
  if (op_reads_memory(kind) || op_writes_memory(kind)) {
    if (op_reads_memory(kind)) {
      a.read_addr = addr;
      a.read_size = size;
    }
    if (op_only_writes(kind) || (op_is_rmw(kind) && !failed)) {
      a.write_addr = addr;
      a.write_size = size;
    }
    if (op_only_writes(kind) && instruction && aux) {  // string move: also reads its source
      a.read2_addr = aux;
      a.read2_size = size;
    }
    return a;
  }
  if (op_on_object(kind)) {  // mutexes, condition signals, rwlocks, semaphores
    a.object = addr;
    return a;
  }
  if (op_is_kernel_wait(kind)) {  // aux: the pseudo-object below
    a.object = aux;
    return a;
  }
  switch (kind) {
    case OpKind::CondWait:
    case OpKind::CondTimedWait:
    case OpKind::CondReacquire:
      a.object = addr;
      a.object2 = aux;
      break;
    case OpKind::FutexWait:
      // It compares the word with the expected value: a read of it, which
      // races with stores there; when it found them equal (not `failed`) it
      // also joined the word's wait queue.
      if (!failed) a.object = addr;
      a.read_addr = addr;
      a.read_size = 4;
      break;
    case OpKind::FutexWake:
    case OpKind::FutexWoken:
      a.object = addr;
      break;
    case OpKind::FutexRequeue:
      a.object = addr;
      a.object2 = aux;
      break;
    case OpKind::SignalSend:
      a.object = kSignalObject;
      break;
    case OpKind::ThreadJoin:
    case OpKind::ThreadExit:
      a.object = thread_object(target);
      break;
    case OpKind::ProcessExit:
      a.everything = true;
      break;
    default:
      break;
  }
  return a;
}

// A logged event. A read-modify-write that left memory as it was (an xchg
// of a held spinlock, a fetch-or of bits already set) only read: like a
// failed compare-exchange, it commutes with other reads, which keeps spin
// loops on locks from multiplying executions.
//
// Under TSO/PSO a buffered store touches nothing others can see until its
// flush (the flush is the write). A load forwarded from the thread's own
// buffer still reads the location here (sleep sets in the agent use this
// relation); DporStrategy refines it along an execution: a load forwarded
// whole conflicts with nothing until its store's flush exposes it, and a
// thread's reads never conflict with its own flushes.
// Only reads one range of memory (a load's access, where a buffer may
// forward the bytes).
inline bool only_reads(const Access& a) {
  return a.read_size && !a.write_size && !a.read2_size && !a.object && !a.object2 && !a.everything;
}

inline Access access_of(const shm::Event& e) {
  auto kind = OpKind(e.kind);
  if (kind == OpKind::Flush) {
    Access a;
    a.write_addr = e.addr;
    a.write_size = e.size;
    return a;
  }
  bool buffered = e.flags & shm::kBuffered;
  if (buffered && kind != OpKind::Rmw) return Access{};
  if (buffered) {  // an unlocked read-modify-write: only its read is shared now
    Access a;
    a.read_addr = e.addr;
    a.read_size = e.size;
    return a;
  }
  if (kind == OpKind::BarrierWait || kind == OpKind::BarrierLeave) {  // value_read: the generation
    Access a;
    if (kind == OpKind::BarrierWait) a.object = barrier_object(e.addr, e.value_read);
    return a;
  }
  uint32_t target = kind == OpKind::ThreadJoin ? uint32_t(e.aux) : e.thread;
  bool unchanged = (kind == OpKind::Rmw || kind == OpKind::AtomicRmw) && e.rmw != uint8_t(RmwOp::None) &&
                   e.value_written == e.value_read;
  return access_of(kind, e.addr, e.size, e.aux, (e.flags & shm::kFailed) || unchanged, target,
                   e.flags & shm::kInstruction);
}

inline shm::SleeperAccess to_record(const Access& a) {
  return shm::SleeperAccess{a.write_addr, a.write_size, a.read_addr, a.read_size, a.read2_addr, a.read2_size,
                            a.object,     a.object2,    a.everything ? 1u : 0u};
}

inline Access from_record(const shm::SleeperAccess& r) {
  Access a;
  a.write_addr = r.write_addr;
  a.write_size = r.write_size;
  a.read_addr = r.read_addr;
  a.read_size = r.read_size;
  a.read2_addr = r.read2_addr;
  a.read2_size = r.read2_size;
  a.object = r.object;
  a.object2 = r.object2;
  a.everything = r.everything != 0;
  return a;
}

inline bool conflicts(const Access& a, const Access& b) {
  if (a.everything || b.everything) return true;
  if (a.object && (a.object == b.object || a.object == b.object2)) return true;
  if (a.object2 && (a.object2 == b.object || a.object2 == b.object2)) return true;
  auto writes_meet = [](const Access& w, const Access& o) {
    return ranges_overlap(w.write_addr, w.write_size, o.write_addr, o.write_size) ||
           ranges_overlap(w.write_addr, w.write_size, o.read_addr, o.read_size) ||
           ranges_overlap(w.write_addr, w.write_size, o.read2_addr, o.read2_size);
  };
  return writes_meet(a, b) || writes_meet(b, a);
}

}  // namespace ctrl
