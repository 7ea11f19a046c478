// Where a parked thread sleeps, in a form a live checkpoint can restart it
// from (agent/LiveCheckpoint.h).
//
// Invariants:
//  * A parked thread sleeps only in park_sleep (Runtime::wait_turn). While
//    `valid` is 1 its ParkContext holds its callee-saved registers, stack
//    pointer, return address and floating-point control words as they were
//    when it entered park_sleep, and the thread does nothing but sleep in
//    (or enter, or return from) its FUTEX_WAIT: its registers and stack are
//    what the context says. `valid` is 0 at any other time.
//  * park_resume, on a thread whose stack and memory are copies of the
//    parked one's, returns from that park_sleep with 0, as if the futex
//    wait had been woken: the thread's own wait loop then decides again.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ctrl::agent {

struct ParkContext {
  uint64_t rbx, rbp, r12, r13, r14, r15;
  uint64_t rsp;  // at park_sleep's entry: its return address is on top
  uint64_t rip;  // that return address
  uint32_t mxcsr;
  uint16_t fpu_control;
  uint16_t pad;
  uint32_t valid;  // accessed with __atomic builtins (the thread itself writes it)
  uint32_t pad2;
};
static_assert(offsetof(ParkContext, rsp) == 48 && offsetof(ParkContext, rip) == 56);
static_assert(offsetof(ParkContext, mxcsr) == 64 && offsetof(ParkContext, fpu_control) == 68);
static_assert(offsetof(ParkContext, valid) == 72);

extern "C" {
// FUTEX_WAIT_PRIVATE on `word` while it holds `expected`, with the caller's
// context saved in `ctx` for the duration (see above). Returns the system
// call's result.
long ctrl_park_sleep(std::atomic<uint32_t>* word, uint32_t expected, ParkContext* ctx)
    __attribute__((visibility("hidden")));
// Continues the thread saved in `ctx` (never returns): see above.
[[noreturn]] void ctrl_park_resume(const ParkContext* ctx) __attribute__((visibility("hidden")));
// clone(2) for a thread that starts in fn(arg) on `stack` (16-byte
// aligned); returns the new thread's tid, or -errno, in the caller.
long ctrl_clone_thread(unsigned long flags, void* stack, int* parent_tid, int* child_tid, unsigned long tls,
                       void (*fn)(void*), void* arg) __attribute__((visibility("hidden")));
}

}  // namespace ctrl::agent
