#pragma once
// The values of a read-modify-write as the graph-based strategies recompute
// them when they make a read take another write (GraphStrategy under
// c11/rc11, WeakTraceStrategy under ra): what it writes from what it reads.
//
// Invariant: rmw_result(op, e.value_read, rmw_operand(e)) == e.value_written
// for every AtomicRmw event e the agent logged (modulo the access size).

#include <cstdint>

#include "Operation.h"
#include "SharedRegion.h"

namespace ctrl {

// v cut to an access of `size` bytes.
inline uint64_t truncate_to_size(uint64_t v, uint32_t size) {
  return size >= 8 ? v : v & ((uint64_t(1) << (8 * size)) - 1);
}

// A RMW's new value from the value it reads.
inline uint64_t rmw_result(RmwOp op, uint64_t old, uint64_t operand) {
  switch (op) {
    case RmwOp::Xchg:
      return operand;
    case RmwOp::Add:
      return old + operand;
    case RmwOp::Sub:
      return old - operand;
    case RmwOp::And:
      return old & operand;
    case RmwOp::Or:
      return old | operand;
    case RmwOp::Xor:
      return old ^ operand;
    case RmwOp::Nand:
      return ~(old & operand);
    default:
      return operand;
  }
}

// What a RMW combines with the value it reads: the agent logs it in aux
// under c11/rc11/ra; exchange, add and subtract also show it in their values.
inline uint64_t rmw_operand(const shm::Event& e) {
  if (OpKind(e.kind) != OpKind::AtomicRmw) return e.aux;
  switch (RmwOp(e.rmw)) {
    case RmwOp::Xchg:
      return e.value_written;
    case RmwOp::Add:
      return e.value_written - e.value_read;
    case RmwOp::Sub:
      return e.value_read - e.value_written;
    default:
      return e.aux;
  }
}

}  // namespace ctrl
