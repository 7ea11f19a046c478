// A thread's registers saved at one point of its execution, to resume there
// later from any stack (the runner's rollback, a recycled thread's return to
// its idle wait). Only what a function call preserves is kept: the callee-
// saved registers, the stack pointer, the return address and the floating-
// point control words; `ctrl_context_save` returns 0, and 1 each time the
// context is resumed. The frame that called it must still be there (or be
// put back) when it is resumed.
#pragma once

#include <cstdint>

namespace ctrl::agent {

struct SavedContext {
  uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
  uint32_t mxcsr;
  uint16_t fpu_control;
  uint16_t pad;
};

extern "C" {
long ctrl_context_save(SavedContext* ctx) __attribute__((returns_twice, visibility("hidden")));
[[noreturn]] void ctrl_context_resume(const SavedContext* ctx) __attribute__((visibility("hidden")));
// Calls fn(arg) on the stack whose top is `top`; fn must not return.
[[noreturn]] void ctrl_call_on_stack(void (*fn)(void*), void* arg, void* top) __attribute__((visibility("hidden")));
}

}  // namespace ctrl::agent
