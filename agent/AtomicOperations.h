// The agent's atomic operations as visible operations, shared by the entry
// points that reach them: libatomic's (InterposeAtomics.cpp, which defines
// them) and ThreadSanitizer's (TsanAtomics.cpp). Each schedules (the step is
// the operation), performs the operation, follows the memory model
// (MemoryModel.h: under --model c11/rc11 the step's Choice) and logs the
// event with the C11 order the program asked for (`order`: __ATOMIC_*, as
// libatomic and TSan both receive it; bits above 0xffff, GCC's HLE hints,
// are ignored).
//
// `via`: who performs the operation on memory. Null: the agent, with the
// hardware's instructions. Otherwise another runtime's implementation of it
// (ThreadSanitizer's, which also updates its happens-before), called exactly
// once per operation, in the place of the hardware instruction, with the
// program's order: what reaches memory and what the operation returns are
// the same as with the hardware, and the other runtime sees every operation
// the program made, with its order. Under c11/rc11 a store or
// read-modify-write whose Choice keeps memory's value (not mo-last) is
// performed as one that writes back what memory holds, a failed
// compare-exchange as a load with the failure order.
//
// Invariant: a thread ctrl does not control (before the checkpoint, a
// runtime's own thread) performs the operation at once, with no event.
#pragma once

#include <cstdint>

#include "Operation.h"

namespace ctrl::agent {

// Another runtime's T-sized operations. Every member is set.
template <class T>
struct AtomicAccess {
  T (*load)(T* p, int order);
  void (*store)(T* p, T v, int order);
  // Indexed by RmwOp (None unused): the value memory held before.
  T (*rmw[8])(T* p, T operand, int order);
  // Strong; updates *expected on failure; nonzero on success.
  int (*cas)(T* p, T* expected, T desired, int success, int failure);
};

template <class T>
T atomic_load(T* p, int order, uint64_t site, const AtomicAccess<T>* via = nullptr);
template <class T>
void atomic_store(T* p, T v, int order, uint64_t site, const AtomicAccess<T>* via = nullptr);
// Returns the value memory held before, or the new one when `return_new`.
template <class T>
T atomic_rmw(T* p, T operand, RmwOp op, int order, uint64_t site, bool return_new,
             const AtomicAccess<T>* via = nullptr);
// Strong: no spurious failure. On failure *expected is what was read.
template <class T>
bool atomic_cas(T* p, T* expected, T desired, int success, int failure, uint64_t site,
                const AtomicAccess<T>* via = nullptr);
// A thread fence; `via` (may be null) is the other runtime's fence.
void atomic_fence(int order, uint64_t site, void (*via)(int order) = nullptr);

}  // namespace ctrl::agent

// The callee-saved registers (rbx rbp r12 r13 r14 r15), the caller's rsp
// after the call, and 1 when a stub wrote them since an implementation last
// took them: what a loop around the call keeps from one call to the next,
// for spin detection (LoopState.h).
extern "C" __thread uint64_t ctrl_caller_state[8] __attribute__((tls_model("initial-exec"), visibility("hidden")));

// An entry point `sym` (exported or hidden, as `binding` says: ".globl" or
// ".hidden") of a few instructions that save the caller's state, then run
// ctrl_impl_<sym> (a tail jump: the return address, CTRL_CALLER_SITE(),
// stays the caller's). rax and r11 are scratch at a call.
#define CTRL_CALL_STUB_BOUND(binding, sym)              \
  __asm__(                                              \
      ".text\n"                                         \
      ".globl " sym "\n" binding " " sym                \
      "\n"                                              \
      ".type " sym ", @function\n" sym                  \
      ":\n"                                             \
      "  movq ctrl_caller_state@gottpoff(%rip), %rax\n" \
      "  movq %rbx, %fs:0(%rax)\n"                      \
      "  movq %rbp, %fs:8(%rax)\n"                      \
      "  movq %r12, %fs:16(%rax)\n"                     \
      "  movq %r13, %fs:24(%rax)\n"                     \
      "  movq %r14, %fs:32(%rax)\n"                     \
      "  movq %r15, %fs:40(%rax)\n"                     \
      "  leaq 8(%rsp), %r11\n"                          \
      "  movq %r11, %fs:48(%rax)\n"                     \
      "  movq $1, %fs:56(%rax)\n"                       \
      "  jmp ctrl_impl_" sym                            \
      "\n"                                              \
      ".size " sym ", .-" sym "\n");
#define CTRL_CALL_STUB(sym) CTRL_CALL_STUB_BOUND(".globl", sym)
#define CTRL_HIDDEN_CALL_STUB(sym) CTRL_CALL_STUB_BOUND(".hidden", sym)
