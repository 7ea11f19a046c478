// A fingerprint of the state a thread keeps where ctrl cannot see it change:
// its general registers and arithmetic flags, its SSE registers, and the top
// of its stack (accesses addressed by rsp are not instruction sites).
//
// Spin detection compares the fingerprints of two visits to the same load
// (agent/ExecutionModel.h): when they are equal, every location the thread
// read in between still holds what it read and the thread changed no memory,
// the thread is about to run the very same instructions on the very same
// values again -- a spin, not a loop whose progress lives in a register
// (a counter, a pointer walking an array). Without the registers, a loop
// that re-reads a global bound at every iteration looked like a spin, and
// the interleavings where it runs on were never explored.
//
// Invariants:
//  - loop_state() and call_state() never return 0: 0 means "not known" (a
//    call that did not come through an entry stub), and an unknown state
//    never equals another, so such a read is never a spin.
//  - It reads only the thread's own stack between its rsp and the top
//    recorded for the thread (set_stack), at most kStackBytes of it.
#pragma once

#include <sys/ucontext.h>

#include <cstdint>

namespace ctrl::agent {

// Enough for the spill slots of a loop's own frame at -O2 (locals addressed
// off rbp, as at -O0, are sites: their writes are seen).
inline constexpr uint64_t kStackBytes = 256;

// `uc`: the registers at the instruction (rip excluded: the site is compared
// separately). `xsave`: an XSAVE image of the thread's extended state, or
// nullptr when there is none. `dead`: Site::dead, registers the code defines
// before it reads them (left out: a loop's first re-read would otherwise
// differ from the second only in what the loop is about to overwrite).
uint64_t loop_state(const ucontext_t& uc, const void* xsave, uint16_t dead = 0);

// The same for a read through a call (libatomic): `saved` holds the caller's
// rbx, rbp, r12-r15 (what a loop around the call keeps across it) and `rsp`
// its stack pointer after the call.
uint64_t call_state(const uint64_t saved[6], uint64_t rsp);

// The calling thread's stack: `top`, the highest address it may read up to
// (its start routine's frame, or the initial stack's end for the main
// thread), and `low`, at or below the lowest address of its stack. An rsp
// outside [low, top) is on another stack (sigaltstack, a coroutine's) whose
// end is unknown: its bytes are left out (and a spill there goes unseen).
void set_stack(uint64_t low, uint64_t top);

}  // namespace ctrl::agent
