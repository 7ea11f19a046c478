// The stack a jump site's hook runs on.
//
// A jump-patched instruction site calls ctrl_site_hook from its trampoline
// (InstructionSites.h). On the program's own stack the hook's frames, the
// saved registers and the XSAVE image take several KiB, more than a
// goroutine's stack has (the Go runtime starts goroutines with 2 KiB and no
// guard page below: the hook overwrote the memory below it, and cgo programs
// died in Go fatal errors). So each controlled thread has a stack of the
// agent's, and the trampoline moves to it after saving the registers on
// the program's stack (the red zone skipped: 264 bytes there, as before).
//
// Invariants: t_hook_stack_top is 0 in a thread that has no hook stack
// (uncontrolled threads, start-up) and while its hook runs (ctrl_site_hook
// clears it): the hook then runs where the program's stack pointer is, so
// a site in a signal handler that interrupted a hook (on the alternate
// signal stack) never reuses the stack the interrupted hook is on. A
// trampoline already on the hook stack stays where it is.
// One stack per thread index, mapped once before the checkpoint (like the
// alternate signal stacks), so executions map nothing.
#pragma once

#include <cstdint>

#include "MemorySnapshot.h"

namespace ctrl::agent {

constexpr uint64_t kHookStackSize = 128 * 1024;

// The top of the calling thread's hook stack, 0 if none. Initial-exec TLS:
// the trampoline reads it at a fixed offset from fs.
extern thread_local uint64_t t_hook_stack_top __attribute__((tls_model("initial-exec")));

// Maps every thread index's hook stack (once).
void reserve_hook_stacks();
// The calling thread, index `index`, runs its hooks on its index's stack.
void take_hook_stack(uint32_t index);
// t_hook_stack_top's offset from the thread pointer (fs base).
int32_t hook_stack_tls_offset();
// Every hook stack ({0, 0} before reserve_hook_stacks or if it failed):
// outside the rollback's snapshot. No hook runs across a rollback, so what
// an execution leaves there is dead; restored, the top pages of every
// thread's stack were copied back after every execution.
MemoryRange hook_stacks_memory();

}  // namespace ctrl::agent
