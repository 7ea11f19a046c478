// Live checkpoints: a paused, multithreaded execution kept as a process
// that can be continued any number of times.
//
// A checkpoint is taken by the deciding thread at a decision, while every
// other controlled thread is parked. It waits until each of them sleeps in
// park_sleep (ParkContext.h: its registers are then in its context record,
// on its stack, which Runtime::Park points to),
// records what the kernel keeps per thread and a fork does not copy (robust
// futex list, signal mask, pending signals; the alternate signal stack and
// thread pointer
// were recorded at the thread's first turn), the offsets of the descriptors
// on regular files, and forks a copy of itself: the checkpoint process. That
// process is single-threaded and only waits on its slot of the region's
// checkpoint table (SharedRegion.h, CheckpointSlot).
//
// Restoring forks the checkpoint process again. The new process (the live
// one) recreates every other thread with clone(): the same thread pointer
// (CLONE_SETTLS), its glibc descriptor's tid word set to the new tid and
// cleared by the kernel at its exit (CLONE_PARENT_SETTID, CLONE_CHILD_
// CLEARTID), on its own stack; each new thread puts back its signal mask,
// alternate stack, robust list and rseq registration, then returns from
// park_sleep as if woken. The live process rewrites the owner tids glibc
// keeps in held mutexes and write-locked rwlocks, puts the offsets and the
// contents of the pipes between the program's threads back, raises the
// signals pending at the checkpoint again,
// republishes the new tids in the region and continues the deciding
// thread, which returns from take() with Restored.
//
// Invariants:
//  * Checkpoint and live processes are children of the fork server
//    (CLONE_PARENT) and die with it (PR_SET_PDEATHSIG), hence with ctrl; the
//    fork server reaps them (its ExecutionEnded for a pid the controller
//    does not know is ignored).
//  * A checkpoint process changes nothing a restore inherits: it only waits
//    on its slot, with every signal blocked, and never runs program code.
//  * Not restored: files changed after the checkpoint (the restore sends a
//    notice when the file journal moved), data in sockets and in pipes with
//    an end outside the process, kernel
//    objects shared with the checkpoint process (open file descriptions, so
//    a pipe's write end stays open in it), thread ids a program saved itself.
#pragma once

#include <signal.h>

#include <cstdint>

#include "ParkContext.h"

namespace ctrl::agent::live_checkpoint {

// The calling thread, controlled as `t`, is about to wait for its first
// turn (its alternate signal stack is set, `altstack`): records its thread
// pointer and alternate stack (Runtime::Park).
void thread_started(uint32_t t, const stack_t& altstack);

enum class Taken {
  Original,  // in the execution: Header::checkpoint_result says the slot (-1: refused)
  Restored,  // in a live process restored from the checkpoint
};
// Takes a checkpoint of the execution as it is before decision `step`, in
// the deciding thread `me`; `fork_server` is the execution's parent.
Taken take(uint32_t me, uint64_t step, int fork_server);

}  // namespace ctrl::agent::live_checkpoint
