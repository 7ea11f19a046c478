// Visible operations: the points at which a target thread stops and lets the
// scheduler choose who runs next. The kinds, their numeric values (stored in
// trace files: they never change, new kinds are appended), their names and
// their properties are listed once, in OpKinds.def; the enum, op_name() and
// the property predicates below are generated from it.
#pragma once

#include <cstdint>

namespace ctrl {

enum class OpKind : uint16_t {
#define CTRL_OP(name, value, text, props) name = value,
#include "OpKinds.def"
#undef CTRL_OP
  Count
};

// What an operation kind does (OpKinds.def says what each property means).
namespace op_props {
enum : uint16_t {
  Reads = 1 << 0,
  Writes = 1 << 1,
  Atomic = 1 << 2,
  Instr = 1 << 3,
  Buffered = 1 << 4,
  Object = 1 << 5,
  Sync = 1 << 6,
  Mutex = 1 << 7,
  Cond = 1 << 8,
  Acquires = 1 << 9,
  KWait = 1 << 10,
};

inline constexpr uint16_t kTable[] = {
#define CTRL_OP(name, value, text, props) uint16_t(props),
#include "OpKinds.def"
#undef CTRL_OP
};

// The values are the table's positions: appended in order, none skipped.
constexpr bool values_are_positions() {
  uint16_t i = 0;
#define CTRL_OP(name, value, text, props) \
  if (uint16_t(OpKind::name) != i++) return false;
#include "OpKinds.def"
#undef CTRL_OP
  return i == uint16_t(OpKind::Count);
}
static_assert(values_are_positions(), "OpKinds.def: values must be 0, 1, 2 ... in table order (append only)");

constexpr uint16_t of(OpKind k) { return uint16_t(k) < uint16_t(OpKind::Count) ? kTable[uint16_t(k)] : 0; }
}  // namespace op_props

// Reads memory at the event's address (loads, read-modify-writes).
constexpr bool op_reads_memory(OpKind k) { return op_props::of(k) & op_props::Reads; }
// Writes memory at the event's address (stores, read-modify-writes).
constexpr bool op_writes_memory(OpKind k) { return op_props::of(k) & op_props::Writes; }
// A load or store alone (not a read-modify-write).
constexpr bool op_only_reads(OpKind k) { return op_reads_memory(k) && !op_writes_memory(k); }
constexpr bool op_only_writes(OpKind k) { return op_writes_memory(k) && !op_reads_memory(k); }
// A read-modify-write (an instruction, or a libatomic exchange, fetch-op, compare-exchange).
constexpr bool op_is_rmw(OpKind k) { return op_reads_memory(k) && op_writes_memory(k); }
// A libatomic call.
constexpr bool op_is_atomic(OpKind k) { return op_props::of(k) & op_props::Atomic; }
// A trapped instruction.
constexpr bool op_is_instruction(OpKind k) { return op_props::of(k) & op_props::Instr; }
// A store buffer may hold its write (TSO/PSO).
constexpr bool op_may_buffer(OpKind k) { return op_props::of(k) & op_props::Buffered; }
// Acts on the synchronisation object at its address and nothing else.
constexpr bool op_on_object(OpKind k) { return op_props::of(k) & op_props::Object; }
// Acts on a synchronisation object of the program or the kernel.
constexpr bool op_is_sync(OpKind k) { return op_props::of(k) & op_props::Sync; }
// Acts on a mutex (a lock, an unlock, a condition wait's mutex).
constexpr bool op_on_mutex(OpKind k) { return op_props::of(k) & op_props::Mutex; }
constexpr bool op_on_condition(OpKind k) { return op_props::of(k) & op_props::Cond; }
// Takes a resource that another operation releases (enabled by it).
constexpr bool op_acquires(OpKind k) { return op_props::of(k) & op_props::Acquires; }
// A probed kernel wait.
constexpr bool op_is_kernel_wait(OpKind k) { return op_props::of(k) & op_props::KWait; }

// Read-modify-write operators of AtomicRmw events.
enum class RmwOp : uint8_t { None = 0, Xchg, Add, Sub, And, Or, Xor, Nand };

// C11 memory orders, as passed to libatomic (__ATOMIC_RELAXED = 0 ...).
enum class MemOrder : uint8_t { Relaxed = 0, Consume, Acquire, Release, AcqRel, SeqCst, NotAtomic = 255 };

const char* op_name(OpKind k);
const char* rmw_name(RmwOp op);
const char* order_name(MemOrder o);

}  // namespace ctrl
