// ThreadSanitizer's atomics as visible operations. In a -fsanitize=thread
// build every C11/C++ atomic is a call into TSan's runtime
// (__tsan_atomic32_load(addr, order), __tsan_atomic64_fetch_add,
// __tsan_atomic8_compare_exchange_strong, __tsan_atomic_thread_fence ...),
// whose code has no sites. TSan's runtime is preloaded before the agent, so
// its definitions win the lookup: the program's import slots for them are
// rebound (ImportSlots.h) to the agent's wrappers, one per function TSan
// exports (widths 8, 16, 32, 64 and 128; load, store, exchange,
// fetch_add/sub/and/or/xor/nand, compare_exchange_strong/weak/val,
// thread_fence, signal_fence).
//
// Each wrapper is the agent's atomic operation (AtomicOperations.h) with
// TSan's own function performing it on memory: it is a visible operation
// with the C11 order the program passed (TSan's orders are __ATOMIC_*'s), and
// TSan still sees every atomic, with its order, once, while the thread holds
// its turn, so its happens-before is what it would be natively for the
// schedule ctrl chose (no false race). Under --model c11/rc11/ra a read may
// read another store than the one TSan's order of operations gives it, so
// TSan would miss a synchronisation: the controller turns TSan's reports off
// there (controller/SessionStartup.cpp) and ctrl's own race check applies.
//
// compare_exchange_weak is performed as strong (as TSan itself does);
// signal_fence orders nothing between threads and is not a scheduling point
// (as libatomic's atomic_signal_fence).
#pragma once

namespace ctrl::agent::tsan_atomics {

// When TSan's runtime is in the process (else does nothing): binds the
// imports of every object loaded at start-up but the sanitizer runtimes and
// the agent. Returns null, or a message naming a TSan atomic ctrl has no
// wrapper for (nothing is rebound then).
const char* bind();

}  // namespace ctrl::agent::tsan_atomics
