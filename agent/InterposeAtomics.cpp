// libatomic's entry points (__atomic_load_4, __atomic_fetch_add_8, the
// generic __atomic_compare_exchange ...): what a program built with
// -fno-inline-atomics calls for every C11/C++ atomic. Preloaded first, these
// definitions win; each one is a visible operation that records the memory
// order the program asked for.
//
// The symbols are defined through asm labels because their C names are GCC
// built-ins. Nothing here may itself call libatomic (it would call back into
// this file), so 16-byte and odd-sized operations are done by hand: with
// cmpxchg16b, or under a lock when the thread is not serialised by ctrl.
//
// What a load returns and what a store does is the memory model's
// (MemoryModel.h): under --model c11/rc11 an operation of 1, 2, 4 or 8 bytes
// follows its step's Choice (AtomicChoice.h), and a store logs in Event::aux
// what memory held before it; other sizes end the execution as Unsupported.
// Under the other models that costs one predictable branch per operation.
//
// Each exported symbol is a few instructions of assembly (CTRL_CALL_STUB,
// AtomicOperations.h) that record the caller's callee-saved registers and
// stack pointer, then jump to the C++ implementation. The operations
// themselves (AtomicOperations.h) serve ThreadSanitizer's entry points too
// (TsanAtomics.cpp).
#include <cstdint>
#include <cstring>

#include "AtomicChoice.h"
#include "AtomicOperations.h"
#include "InitialisedMemory.h"
#include "LoopState.h"
#include "MemoryModel.h"
#include "Runtime.h"

using namespace ctrl;
using namespace ctrl::agent;

using u128 = unsigned __int128;

#define SITE() CTRL_CALLER_SITE()

__thread uint64_t ctrl_caller_state[8];

// The caller's state for spin detection, once per call (0: not known, as
// when the call did not come through a stub).
uint64_t take_caller_state() {
  if (ctrl_caller_state[7] != 1) return 0;
  ctrl_caller_state[7] = 0;
  return call_state(ctrl_caller_state, ctrl_caller_state[6]);
}

namespace {

template <class T>
uint64_t low_bits(T v) {
  uint64_t r = 0;
  memcpy(&r, &v, sizeof(T) < 8 ? sizeof(T) : 8);
  return r;
}

bool cas16(u128* p, u128& expected, u128 desired) {
  bool ok;
  uint64_t lo = uint64_t(expected), hi = uint64_t(expected >> 64);
  __asm__ __volatile__("lock cmpxchg16b %1"
                       : "=@ccz"(ok), "+m"(*p), "+a"(lo), "+d"(hi)
                       : "b"(uint64_t(desired)), "c"(uint64_t(desired >> 64))
                       : "memory");
  expected = u128(lo) | (u128(hi) << 64);
  return ok;
}

// Hardware atomics for every size, none of which calls libatomic.
template <class T>
T hw_load(T* p) {
  if constexpr (sizeof(T) == 16) {
    u128 v = 0;
    cas16(reinterpret_cast<u128*>(p), v, v);
    return T(v);
  } else {
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
  }
}

// c11/rc11: bytes an atomic operation wrote before the checkpoint, which no
// event shows (SharedRegion.h's initialised table).
void note_startup_write(const void* p, size_t n) {
  // (The model is not known yet: the first plan comes after the checkpoint.)
  if (!rt.enabled || rt.checkpointed || !rt.region.header) return;
  note_initialised(reinterpret_cast<uint64_t>(p), n);
}

template <class T>
bool hw_cas(T* p, T& expected, T desired) {
  if constexpr (sizeof(T) == 16) {
    u128 e = expected;
    bool ok = cas16(reinterpret_cast<u128*>(p), e, desired);
    expected = e;
    return ok;
  } else {
    return __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
}

template <class T, class F>
T hw_rmw(T* p, F f) {
  T old = hw_load(p);
  while (!hw_cas(p, old, T(f(old)))) {
  }
  return old;
}

template <class T>
T apply(RmwOp op, T old, T operand) {
  return apply_rmw(op, old, operand);
}

MemOrder order_of(int order) {
  order &= 0xffff;  // GCC's HLE hints above
  return order >= 0 && order <= 5 ? MemOrder(order) : MemOrder::SeqCst;
}

// The operation on memory, by the hardware or by `via` (AtomicOperations.h).
template <class T>
T do_load(T* p, int order, const AtomicAccess<T>* via) {
  return via ? via->load(p, order) : hw_load(p);
}

template <class T>
void do_store(T* p, T v, int order, const AtomicAccess<T>* via) {
  if (via)
    via->store(p, v, order);
  else if constexpr (sizeof(T) == 16)
    hw_rmw(p, [&](T) { return v; });
  else
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

template <class T>
T do_rmw(T* p, T operand, RmwOp op, int order, const AtomicAccess<T>* via) {
  if (via) return via->rmw[size_t(op)](p, operand, order);
  return hw_rmw(p, [&](T o) { return apply(op, o, operand); });
}

template <class T>
bool do_cas(T* p, T& expected, T desired, int success, int failure, const AtomicAccess<T>* via) {
  return via ? via->cas(p, &expected, desired, success, failure) != 0 : hw_cas(p, expected, desired);
}

// ---- Models that follow Choices (c11/rc11: MemoryModel::follows_choices),
// called by a controlled thread holding the token, after rt.begin: the
// Choice read is that of its step. Serialised, it may read then write
// memory: no controlled thread runs meanwhile. ----

[[noreturn]] void unsupported_size(uint32_t me, uint64_t site) {
  rt.end_execution(shm::Outcome::Unsupported, me, site, rt.memory->refuses_atomic_size());
}

template <class T>
T from_bits(uint64_t v) {
  T r;
  memcpy(&r, &v, sizeof(T));
  return r;
}

template <class T>
T chosen_read(uint32_t me, uint64_t site, T memory) {
  if constexpr (sizeof(T) > 8)
    unsupported_size(me, site);
  else
    return from_bits<T>(rt.memory->atomic_read(rt.choice(), sizeof(T), low_bits(memory)));
}

// True when the store reaches memory; `before`: what memory held.
template <class T>
bool chosen_store(uint32_t me, uint64_t site, T* p, uint64_t& before) {
  if constexpr (sizeof(T) > 8) {
    unsupported_size(me, site);
  } else {
    before = low_bits(hw_load(p));
    return rt.memory->atomic_writes(rt.choice());
  }
}

template <class T>
void chosen_rmw(uint32_t me, uint64_t site, T* p, T operand, RmwOp op, int order, const AtomicAccess<T>* via, T& old,
                T& now) {
  if constexpr (sizeof(T) > 8) {
    unsupported_size(me, site);
  } else {
    const T memory = hw_load(p);
    MemoryModel::RmwResult r = rt.memory->atomic_rmw(rt.choice(), sizeof(T), low_bits(memory), op, low_bits(operand));
    old = from_bits<T>(r.read);
    now = from_bits<T>(r.written);
    if (via)
      via->rmw[size_t(RmwOp::Xchg)](p, r.write ? now : memory, order);
    else if (r.write)
      __atomic_store_n(p, now, __ATOMIC_SEQ_CST);
  }
}

template <class T>
bool chosen_cas(uint32_t me, uint64_t site, T* p, T expected, T desired, int success, int failure,
                const AtomicAccess<T>* via, T& read) {
  if constexpr (sizeof(T) > 8) {
    unsupported_size(me, site);
  } else {
    const T memory = hw_load(p);
    MemoryModel::CasResult r = rt.memory->atomic_cas(rt.choice(), sizeof(T), low_bits(memory), low_bits(expected));
    if (via && r.ok)
      via->rmw[size_t(RmwOp::Xchg)](p, r.write ? desired : memory, success);
    else if (via)
      via->load(p, failure);
    else if (r.write)
      __atomic_store_n(p, desired, __ATOMIC_SEQ_CST);
    read = from_bits<T>(r.read);
    return r.ok;
  }
}

}  // namespace

namespace ctrl::agent {

template <class T>
T atomic_load(T* p, int order, uint64_t site, const AtomicAccess<T>* via) {
  if (!rt.controlled()) return do_load(p, order, via);
  uint32_t me = t_me;
  uint64_t a = reinterpret_cast<uint64_t>(p);
  PendingOp pending = memory_op(OpKind::AtomicLoad, a, sizeof(T), site);
  pending.state = take_caller_state();
  rt.begin(me, pending);
  T v = do_load(p, order, via);
  MemoryModel& memory = *rt.memory;
  if (memory.follows_choices()) [[unlikely]]
    v = chosen_read(me, site, v);
  uint8_t flags = memory.forwarded(me, a, sizeof(T)) ? uint8_t(shm::kForwarded) : 0;
  if (pending.state && rt.model.same_state_repeat(me)) flags |= shm::kSameState;
  rt.log(me, OpKind::AtomicLoad, a, site, low_bits(v), rt.read_states ? pending.state : 0, 0, sizeof(T),
         order_of(order), RmwOp::None, flags);
  return v;
}

template <class T>
T atomic_rmw(T* p, T operand, RmwOp op, int order, uint64_t site, bool return_new, const AtomicAccess<T>* via) {
  if (!rt.checkpointed) [[unlikely]]
    note_startup_write(p, sizeof(T));
  if (!rt.controlled()) {
    T old = do_rmw(p, operand, op, order, via);
    return return_new ? apply(op, old, operand) : old;
  }
  uint32_t me = t_me;
  uint64_t a = reinterpret_cast<uint64_t>(p);
  PendingOp pending = memory_op(OpKind::AtomicRmw, a, sizeof(T), site);
  pending.drains = true;  // a locked instruction
  pending.state = take_caller_state();
  rt.begin(me, pending);
  T old, now;
  const bool choices = rt.memory->follows_choices();
  if (choices) [[unlikely]] {
    chosen_rmw(me, site, p, operand, op, order, via, old, now);
  } else {
    old = do_rmw(p, operand, op, order, via);
    now = apply(op, old, operand);
  }
  uint8_t flags = pending.state && rt.model.same_state_repeat(me) ? uint8_t(shm::kSameState) : 0;
  // Following Choices: aux is the operand (the controller recomputes the
  // new value when the read would read another store).
  rt.log(me, OpKind::AtomicRmw, a, site, low_bits(old), low_bits(now), choices ? low_bits(operand) : 0, sizeof(T),
         order_of(order), op, flags);
  return return_new ? now : old;
}

template <class T>
void atomic_store(T* p, T v, int order, uint64_t site, const AtomicAccess<T>* via) {
  if (!rt.checkpointed) [[unlikely]]
    note_startup_write(p, sizeof(T));
  if (!rt.controlled()) {
    do_store(p, v, order, via);
    return;
  }
  uint32_t me = t_me;
  uint64_t a = reinterpret_cast<uint64_t>(p);
  // x86: a seq_cst store is a locked xchg (it drains); weaker stores are
  // plain movs, which the memory model places (a store buffer may hold them).
  MemoryModel& memory = *rt.memory;
  bool seq_cst = order_of(order) == MemOrder::SeqCst;
  MemoryModel::StorePlan store;
  if (!seq_cst) store = memory.plan_store(me, a, sizeof(T));
  PendingOp op = memory_op(OpKind::AtomicStore, a, sizeof(T), site);
  op.drains = store.drains;
  rt.begin(me, op);
  bool buffered = store.buffered;
  if (buffered && !memory.buffer_store(me, a, sizeof(T), rt.step()))
    rt.end_execution(shm::Outcome::Unsupported, me, site, memory.no_buffer_left());
  // Following Choices: what memory held before (the controller learns a
  // location's initial value from it), and whether the store becomes mo-last.
  uint64_t before = 0;
  bool write = true;
  if (memory.follows_choices()) [[unlikely]]
    write = chosen_store(me, site, p, before);
  if (write)
    do_store(p, v, order, via);
  else if (via)
    via->store(p, hw_load(p), order);  // memory keeps the mo-last value
  rt.log(me, OpKind::AtomicStore, a, site, 0, low_bits(v), before, sizeof(T), order_of(order), RmwOp::None,
         buffered ? uint8_t(shm::kBuffered) : 0);
}

template <class T>
bool atomic_cas(T* p, T* expected, T desired, int success, int failure, uint64_t site, const AtomicAccess<T>* via) {
  if (!rt.checkpointed) [[unlikely]]
    note_startup_write(p, sizeof(T));
  if (!rt.controlled()) return do_cas(p, *expected, desired, success, failure, via);
  uint32_t me = t_me;
  uint64_t a = reinterpret_cast<uint64_t>(p);
  PendingOp op = memory_op(OpKind::AtomicCas, a, sizeof(T), site);
  op.drains = true;  // a locked instruction
  op.state = take_caller_state();
  rt.begin(me, op);
  T read = *expected;
  const T wanted = *expected;
  bool ok;
  const bool choices = rt.memory->follows_choices();
  if (choices) [[unlikely]]
    ok = chosen_cas(me, site, p, *expected, desired, success, failure, via, read);
  else
    ok = do_cas(p, read, desired, success, failure, via);  // on success `read` keeps *expected: what memory held
  if (!ok) *expected = read;
  uint8_t flags = (ok ? 0 : uint8_t(shm::kFailed)) |
                  (op.state && rt.model.same_state_repeat(me) ? uint8_t(shm::kSameState) : 0);
  // Following Choices: a failed one logs the value it would have written,
  // and aux the value it expected (the controller decides success for
  // another read).
  rt.log(me, OpKind::AtomicCas, a, site, low_bits(read), ok || choices ? low_bits(desired) : 0,
         choices ? low_bits(wanted) : 0, sizeof(T), order_of(ok ? success : failure), RmwOp::None, flags);
  return ok;
}

void atomic_fence(int order, uint64_t site, void (*via)(int)) {
  if (rt.controlled()) {
    uint32_t me = t_me;
    rt.begin(me, PendingOp{OpKind::Fence, 0, 0, site});
    if (via)
      via(order);
    else
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
    rt.log(me, OpKind::Fence, 0, site, 0, 0, 0, 0, order_of(order));
    return;
  }
  if (via)
    via(order);
  else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#define CTRL_ATOMIC_INSTANTIATE(T)                                                                        \
  template T atomic_load<T>(T*, int, uint64_t, const AtomicAccess<T>*);                                  \
  template void atomic_store<T>(T*, T, int, uint64_t, const AtomicAccess<T>*);                           \
  template T atomic_rmw<T>(T*, T, RmwOp, int, uint64_t, bool, const AtomicAccess<T>*);                   \
  template bool atomic_cas<T>(T*, T*, T, int, int, uint64_t, const AtomicAccess<T>*);
CTRL_ATOMIC_INSTANTIATE(uint8_t)
CTRL_ATOMIC_INSTANTIATE(uint16_t)
CTRL_ATOMIC_INSTANTIATE(uint32_t)
CTRL_ATOMIC_INSTANTIATE(uint64_t)
CTRL_ATOMIC_INSTANTIATE(u128)
#undef CTRL_ATOMIC_INSTANTIATE

}  // namespace ctrl::agent

namespace {
// Odd sizes (generic entry points): only serialised threads are safe without
// a lock, and the rest take this one.
std::atomic_flag odd_lock = ATOMIC_FLAG_INIT;
struct OddGuard {
  bool locked;
  OddGuard() : locked(!rt.controlled()) {
    if (locked)
      while (odd_lock.test_and_set(std::memory_order_acquire)) __builtin_ia32_pause();
  }
  ~OddGuard() {
    if (locked) odd_lock.clear(std::memory_order_release);
  }
};

// A model that cannot follow odd sizes (c11/rc11) ends the execution
// (Unsupported) before the operation runs.
void odd_refused(OpKind kind, void* p, size_t n, uint64_t site) {
  if (!rt.controlled() || !rt.memory->refuses_atomic_size()) return;
  uint32_t me = t_me;
  rt.begin(me, memory_op(kind, reinterpret_cast<uint64_t>(p), uint32_t(n), site));
  unsupported_size(me, site);
}

void odd_event(OpKind kind, void* p, size_t n, int order, uint64_t site, bool failed = false) {
  if (!rt.controlled()) return;
  uint32_t me = t_me;
  uint64_t a = reinterpret_cast<uint64_t>(p);
  PendingOp op = memory_op(kind, a, uint32_t(n), site);
  op.drains = true;  // odd sizes run directly, on drained buffers
  rt.begin(me, op);
  rt.log(me, kind, a, site, 0, 0, 0, uint32_t(n), order_of(order), RmwOp::None, failed ? shm::kFailed : 0);
}

}  // namespace

#define CTRL_ATOMIC_SIZED(N, T)                                                                               \
  extern "C" T ctrl_load_##N(T* p, int o) __asm__("ctrl_impl___atomic_load_" #N) __attribute__((visibility("hidden")));                                      \
  T ctrl_load_##N(T* p, int o) { return atomic_load<T>(p, o, SITE()); }                                      \
  CTRL_CALL_STUB("__atomic_load_" #N)                                                                         \
  CTRL_CALL_STUB("__atomic_store_" #N)                                                                        \
  CTRL_CALL_STUB("__atomic_exchange_" #N)                                                                     \
  CTRL_CALL_STUB("__atomic_compare_exchange_" #N)                                      \
  extern "C" void ctrl_store_##N(T* p, T v, int o) __asm__("ctrl_impl___atomic_store_" #N) __attribute__((visibility("hidden")));                            \
  void ctrl_store_##N(T* p, T v, int o) { atomic_store<T>(p, v, o, SITE()); }                                \
  extern "C" T ctrl_exchange_##N(T* p, T v, int o) __asm__("ctrl_impl___atomic_exchange_" #N) __attribute__((visibility("hidden")));                         \
  T ctrl_exchange_##N(T* p, T v, int o) { return atomic_rmw<T>(p, v, RmwOp::Xchg, o, SITE(), false); }       \
  extern "C" bool ctrl_cas_##N(T* p, T* e, T d, int s, int f) __asm__("ctrl_impl___atomic_compare_exchange_" #N) __attribute__((visibility("hidden")));      \
  bool ctrl_cas_##N(T* p, T* e, T d, int s, int f) { return atomic_cas<T>(p, e, d, s, f, SITE()); }          \
  CTRL_ATOMIC_OP(N, T, add, Add)                                                                              \
  CTRL_ATOMIC_OP(N, T, sub, Sub)                                                                              \
  CTRL_ATOMIC_OP(N, T, and, And)                                                                              \
  CTRL_ATOMIC_OP(N, T, or, Or)                                                                                \
  CTRL_ATOMIC_OP(N, T, xor, Xor)                                                                              \
  CTRL_ATOMIC_OP(N, T, nand, Nand)

#define CTRL_ATOMIC_OP(N, T, name, Op)                                                                        \
  extern "C" T ctrl_fetch_##name##_##N(T* p, T v, int o) __asm__("ctrl_impl___atomic_fetch_" #name "_" #N) __attribute__((visibility("hidden")));            \
  T ctrl_fetch_##name##_##N(T* p, T v, int o) { return atomic_rmw<T>(p, v, RmwOp::Op, o, SITE(), false); }   \
  CTRL_CALL_STUB("__atomic_fetch_" #name "_" #N)                                                              \
  CTRL_CALL_STUB("__atomic_" #name "_fetch_" #N)                                                              \
  extern "C" T ctrl_##name##_fetch_##N(T* p, T v, int o) __asm__("ctrl_impl___atomic_" #name "_fetch_" #N) __attribute__((visibility("hidden")));            \
  T ctrl_##name##_fetch_##N(T* p, T v, int o) { return atomic_rmw<T>(p, v, RmwOp::Op, o, SITE(), true); }

#define CTRL_TEST_AND_SET(N)                                                                                  \
  extern "C" bool ctrl_tas_##N(void* p, int o) __asm__("ctrl_impl___atomic_test_and_set_" #N) __attribute__((visibility("hidden")));                         \
  bool ctrl_tas_##N(void* p, int o) {                                                                         \
    return atomic_rmw<uint8_t>(static_cast<uint8_t*>(p), 1, RmwOp::Xchg, o, SITE(), false) != 0;             \
  }                                                                                                           \
  CTRL_CALL_STUB("__atomic_test_and_set_" #N)

CTRL_ATOMIC_SIZED(1, uint8_t)
CTRL_ATOMIC_SIZED(2, uint16_t)
CTRL_ATOMIC_SIZED(4, uint32_t)
CTRL_ATOMIC_SIZED(8, uint64_t)
CTRL_ATOMIC_SIZED(16, u128)
CTRL_TEST_AND_SET(1)
CTRL_TEST_AND_SET(2)
CTRL_TEST_AND_SET(4)
CTRL_TEST_AND_SET(8)

// Generic entry points: sizes 1..16 that are powers of two go to the sized
// implementations; others are copied.
extern "C" void ctrl_load_any(size_t n, void* p, void* ret, int o) __asm__("ctrl_impl___atomic_load") __attribute__((visibility("hidden")));
CTRL_CALL_STUB("__atomic_load")
void ctrl_load_any(size_t n, void* p, void* ret, int o) {
  uint64_t site = SITE();
  switch (n) {
    case 1: *static_cast<uint8_t*>(ret) = atomic_load<uint8_t>(static_cast<uint8_t*>(p), o, site); return;
    case 2: *static_cast<uint16_t*>(ret) = atomic_load<uint16_t>(static_cast<uint16_t*>(p), o, site); return;
    case 4: *static_cast<uint32_t*>(ret) = atomic_load<uint32_t>(static_cast<uint32_t*>(p), o, site); return;
    case 8: *static_cast<uint64_t*>(ret) = atomic_load<uint64_t>(static_cast<uint64_t*>(p), o, site); return;
    case 16: {
      u128 v = atomic_load<u128>(static_cast<u128*>(p), o, site);
      memcpy(ret, &v, 16);
      return;
    }
  }
  odd_refused(OpKind::AtomicLoad, p, n, site);
  odd_event(OpKind::AtomicLoad, p, n, o, site);
  OddGuard g;
  memcpy(ret, p, n);
}

extern "C" void ctrl_store_any(size_t n, void* p, void* val, int o) __asm__("ctrl_impl___atomic_store") __attribute__((visibility("hidden")));
CTRL_CALL_STUB("__atomic_store")
void ctrl_store_any(size_t n, void* p, void* val, int o) {
  uint64_t site = SITE();
  switch (n) {
    case 1: atomic_store<uint8_t>(static_cast<uint8_t*>(p), *static_cast<uint8_t*>(val), o, site); return;
    case 2: atomic_store<uint16_t>(static_cast<uint16_t*>(p), *static_cast<uint16_t*>(val), o, site); return;
    case 4: atomic_store<uint32_t>(static_cast<uint32_t*>(p), *static_cast<uint32_t*>(val), o, site); return;
    case 8: atomic_store<uint64_t>(static_cast<uint64_t*>(p), *static_cast<uint64_t*>(val), o, site); return;
    case 16: {
      u128 v;
      memcpy(&v, val, 16);
      atomic_store<u128>(static_cast<u128*>(p), v, o, site);
      return;
    }
  }
  odd_refused(OpKind::AtomicStore, p, n, site);
  odd_event(OpKind::AtomicStore, p, n, o, site);
  OddGuard g;
  memcpy(p, val, n);
}

extern "C" void ctrl_exchange_any(size_t n, void* p, void* val, void* ret, int o) __asm__("ctrl_impl___atomic_exchange") __attribute__((visibility("hidden")));
CTRL_CALL_STUB("__atomic_exchange")
void ctrl_exchange_any(size_t n, void* p, void* val, void* ret, int o) {
  uint64_t site = SITE();
#define CTRL_XCHG_CASE(N, T)                                                                 \
  case N: {                                                                                  \
    T v;                                                                                     \
    memcpy(&v, val, N);                                                                      \
    T old = atomic_rmw<T>(static_cast<T*>(p), v, RmwOp::Xchg, o, site, false);              \
    memcpy(ret, &old, N);                                                                    \
    return;                                                                                  \
  }
  switch (n) {
    CTRL_XCHG_CASE(1, uint8_t)
    CTRL_XCHG_CASE(2, uint16_t)
    CTRL_XCHG_CASE(4, uint32_t)
    CTRL_XCHG_CASE(8, uint64_t)
    CTRL_XCHG_CASE(16, u128)
  }
#undef CTRL_XCHG_CASE
  odd_refused(OpKind::AtomicRmw, p, n, site);
  odd_event(OpKind::AtomicRmw, p, n, o, site);
  OddGuard g;
  memcpy(ret, p, n);
  memcpy(p, val, n);
}

extern "C" bool ctrl_cas_any(size_t n, void* p, void* e, void* d, int s, int f) __asm__("ctrl_impl___atomic_compare_exchange") __attribute__((visibility("hidden")));
CTRL_CALL_STUB("__atomic_compare_exchange")
bool ctrl_cas_any(size_t n, void* p, void* e, void* d, int s, int f) {
  uint64_t site = SITE();
#define CTRL_CAS_CASE(N, T)                                                      \
  case N: {                                                                      \
    T desired;                                                                   \
    memcpy(&desired, d, N);                                                      \
    return atomic_cas<T>(static_cast<T*>(p), static_cast<T*>(e), desired, s, f, site); \
  }
  switch (n) {
    CTRL_CAS_CASE(1, uint8_t)
    CTRL_CAS_CASE(2, uint16_t)
    CTRL_CAS_CASE(4, uint32_t)
    CTRL_CAS_CASE(8, uint64_t)
    CTRL_CAS_CASE(16, u128)
  }
#undef CTRL_CAS_CASE
  odd_refused(OpKind::AtomicCas, p, n, site);
  bool ok;
  {
    OddGuard g;
    ok = memcmp(p, e, n) == 0;
    if (ok)
      memcpy(p, d, n);
    else
      memcpy(e, p, n);
  }
  odd_event(OpKind::AtomicCas, p, n, ok ? s : f, site, !ok);
  return ok;
}

// C11 library functions libatomic also exports (used when <stdatomic.h>
// macros are bypassed).
extern "C" void atomic_thread_fence(int o) { atomic_fence(o, SITE()); }

extern "C" void atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

extern "C" bool atomic_flag_test_and_set_explicit(volatile void* p, int o) {
  return atomic_rmw<uint8_t>(const_cast<uint8_t*>(static_cast<volatile uint8_t*>(p)), 1, RmwOp::Xchg, o, SITE(),
                             false) != 0;
}

extern "C" bool atomic_flag_test_and_set(volatile void* p) {
  return atomic_rmw<uint8_t>(const_cast<uint8_t*>(static_cast<volatile uint8_t*>(p)), 1, RmwOp::Xchg, 5, SITE(),
                             false) != 0;
}

extern "C" void atomic_flag_clear_explicit(volatile void* p, int o) {
  atomic_store<uint8_t>(const_cast<uint8_t*>(static_cast<volatile uint8_t*>(p)), 0, o, SITE());
}

extern "C" void atomic_flag_clear(volatile void* p) {
  atomic_store<uint8_t>(const_cast<uint8_t*>(static_cast<volatile uint8_t*>(p)), 0, 5, SITE());
}
