// Own memory: the stack and static TLS of a thread, which its instruction
// accesses reach without making a step while no other thread touches them
// (issue 22, item 4; docs/ARCHITECTURE.md "Own memory").
//
// Under --visible all every load and store of instrumented code is a step;
// most of a runtime-heavy program's (a Rust tool's) are to its own stack.
// With the plan's own_memory on, an instruction access that lies wholly in
// the calling thread's own memory and in no range of the plan's shared set
// (shm::Header::shared) is not a step: no begin, no event. Every *visible*
// operation (Runtime::begin) that touches another thread's own memory, or
// memory registered as own for a thread that ended or for no thread yet,
// outside the shared set, is recorded in the execution's discovered list
// (shm::Header::discovered, whole granules): the controller then adds it
// to the shared set and explores again from the start (Explorer.h).
//
// Invariants:
//  - Own memory of a thread: its stack block as pthread_getattr_np gives it
//    (glibc puts the thread's static TLS and descriptor at its top), or for
//    the main thread its stack below __libc_stack_end and its static TLS
//    blocks with the header of its thread control block. A region, once
//    registered in an execution, stays registered (a thread's region after
//    it ended is nobody's: every access to it is a sharing); the pool's
//    stacks (ThreadPool.h) are registered before the checkpoint as nobody's.
//  - own(T) and own(U) are disjoint while both run; every registered region
//    is checked by note(), so an access of another thread that is a visible
//    operation never goes unrecorded.
//  - The shared set and own_memory do not change during an execution: the
//    same accesses are steps in a replay of its trace.
//  - Accesses ctrl never sees (code it does not instrument, such as libc's
//    memcpy, the kernel's writes for a system call, rsp-addressed accesses)
//    are outside this rule as they are outside every other.
#pragma once

#include <cstdint>

#include "ExecutionModel.h"
#include "SharedRegion.h"

namespace ctrl::agent::own_memory {

struct Span {
  uint64_t lo = 0, hi = 0;  // [lo, hi)
};

// A thread that only touches its own memory for this many instruction
// accesses in a row makes its next kBurstLoads loads steps again: a thread
// spinning on a flag in its own stack that another thread will write (a
// sharing not yet discovered) must reach a step for the scheduler to let
// the writer run, and spin detection (LoopState.h) compares consecutive
// visits of the same load, which a burst of consecutive loads contains for
// any loop of up to kBurstLoads / 2 loads per iteration.
inline constexpr uint32_t kQuietAccesses = 16384;
inline constexpr uint32_t kBurstLoads = 16;

// Before the checkpoint, in the main thread: its own memory (made its own
// and registered).
void set_main(Span stack, Span tls);
// Registers memory that is nobody's own yet (the pool's stacks).
void add_unowned(Span s);
// The calling thread's stack block, at its first turn: made its own and
// registered. Async-signal-unsafe (not called from a handler).
void set_thread(Span block);

// Whether an instruction access of the calling thread to [addr, addr+size)
// lies wholly in its own memory and touches no range of the shared set.
bool hidden(const shm::Header& h, uint64_t addr, uint64_t size);
// Whether a hidden access of `th` stays hidden (false: the budget above
// makes it a step; only loads become steps).
bool stays_hidden(ThreadModel& th, bool load);
// A visible operation of the calling thread: records the granules of
// [addr, addr+size) that lie in another thread's (or nobody's) registered
// memory, or with `even_own` in any registered memory, and not in the
// shared set.
void note(shm::Header& h, uint64_t addr, uint64_t size, bool even_own = false);
// note() for every address `op` touches (memory accesses, futex words);
// a libatomic call's location counts as shared in its own thread too.
void note_op(shm::Header& h, const PendingOp& op);

}  // namespace ctrl::agent::own_memory
