// Recycled threads: the first kSlots threads an execution creates with
// default attributes run on fixed stacks, one per creation order, and end
// *virtually*: when the start routine returns, the thread runs the
// program's thread-local and thread-specific destructors, as libc's exit
// path would, then parks until the execution is over instead of exiting.
// Its stack and descriptor are never reused within the execution.
//
// The slots' threads are created once, at the checkpoint, in the fork
// server (libc allocates their TLS vectors there, so every execution starts
// from the same heap), and each saves its context in its idle wait
// (SavedContext.h). A process forked from the fork server (by _Fork: libc
// still counts them) recreates a slot's thread with clone() at that
// context, on the same descriptor, stack and TLS: the runner all of them
// before its snapshot is armed, any other process (a process per
// execution, one restored from a live checkpoint) when the slot is first
// taken. An execution hands a slot's thread its start routine with a
// futex wake. In the runner, after the execution, the threads that ran
// wait on stacks of the agent's own while the memory is restored, and stay
// there until their slot is taken again: they then resume their saved
// context, with the checkpoint's stack and TLS, and take the new routine.
// Under user-level hand-offs (Runtime.h) they wait as idle carriers, and
// the kernel thread that runs the program may resume that context itself
// (resume_start); a slot's thread may also end on another kernel thread,
// whose carrier then leaves its stack.
// So what the program sees (its thread's stack, descriptor and TLS
// addresses, the stack pointer its start routine gets, the heap, what an
// ended thread leaves to the others) is the same in every mode.
//
// Invariants:
//  * Slot k is the k-th eligible creation of the execution; a creation with
//    attributes that ask for something else (a stack, a size, a scheduling
//    policy) or past the last slot gets a real thread, which really exits.
//  * Idle and ended slot threads block every signal: a signal for the
//    process goes to a thread of the program. (Not yet when the kernel
//    thread of an ended one carried other threads after its own ended: it
//    idles with the mask of the last thread it ran.)
//  * What a rollback must not undo (the saved contexts, which thread is
//    parked where) lives in memory of the agent's own (`private_range`);
//    what an execution uses (start routine, result) lives in the program's
//    memory and is restored with it.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <cstdint>

#include "MemorySnapshot.h"

namespace ctrl::agent::thread_pool {

inline constexpr uint32_t kSlots = 8;
inline constexpr uint32_t kNoSlot = UINT32_MAX;

// The calling thread is a slot's, started in this execution with the
// creator's mask less the managed signals (Signals.h) and nothing of the
// program run since: its first turn need not unblock them (a system call
// per thread and execution).
bool started_unblocked();

// What a slot's thread (or a real one) runs.
struct StartInfo {
  void* (*fn)(void*);
  void* arg;
  uint32_t index;    // the thread's index in the model
  uint64_t sigmask;  // the creator's signal mask, which a new thread inherits
  // A sanitizer's start routine, run uncontrolled before the thread's first
  // turn; it calls the program's through the agent (SanitizerRuntime.h).
  void* (*runtime_fn)(void*) = nullptr;
  void* runtime_arg = nullptr;
};

// The routine a sanitizer's start routine calls in place of the program's:
// the thread's first turn, then the program's routine (InterposePthread.cpp).
void* (*sanitizer_entry_point())(void*);

// At the checkpoint (the fork server): maps the slots' stacks and the
// agent's own state, and creates every slot's thread there (it saves its
// context in its idle wait). False when that is impossible (no slot is then
// used).
bool reserve();
// In the runner, before the snapshot is armed: every slot's thread,
// recreated. False when one could not be (that slot's thread is then
// recreated when it is taken, and the runner cannot roll that execution
// back).
bool start_runner();
// The pool is in use (reserve() made every slot's thread).
bool active();
// The agent's own memory that a rollback must leave alone.
MemoryRange private_range();

// A creation with these attributes may take a slot.
bool eligible(const pthread_attr_t* attr);
// Gives `info` to the next free slot, recreating its thread if this process
// has none; sets *thread. The thread runs once woken: now, or by wake()
// (Runtime wakes it when it is first chosen: a wake-up now would only make
// it wait for its turn). kNoSlot when no slot is free (or its thread could
// not be recreated): the caller creates a real thread.
uint32_t start(const StartInfo& info, pthread_t* thread, bool wake_now);
void wake(uint32_t slot);
// The slot of the thread with this handle in this execution, or kNoSlot.
uint32_t slot_of(uint64_t handle);
// The value the slot's start routine returned (once it ended).
void* result(uint32_t slot);
// The slot's thread ended virtually (its destructors have run).
bool ended(uint32_t slot);
// pthread_key_create: the destructor an ended slot thread runs for `key`.
void note_key(unsigned key, void (*dtor)(void*));
// pthread_exit in a slot's thread: it exits for real with `value`; the
// runner cannot bring it back.
void note_exit(uint32_t slot, void* value);

// A slot thread whose execution is over (rolled back or ended another way):
// it leaves the program's stack and waits for a rollback to resume it, or
// for the process to end. Never returns.
[[noreturn]] void park_for_rollback(uint32_t slot);
// User-level hand-offs (Runtime.h): a slot's kernel thread whose thread
// ended, or that has none yet in this execution, idles as a carrier
// (Runtime::carrier_idle) with every signal blocked, off the slot's stack.
// The slot's thread ended (virtually) and its stack is left: the slot
// counts as parked for the rollback, whichever kernel thread ran it (its
// own one idles, or will once it leaves what it carries).
void note_parked(uint32_t slot);
// The slot, taken in this execution, may start its thread on the calling
// kernel thread (resume_start): it is parked (its own kernel thread idles off
// the slot's stack) and no sanitizer's routine runs first.
bool can_start_away(uint32_t slot);
// Resumes the slot's saved start context with its thread pointer: on its
// own kernel thread, woken (`away` false), or on the calling carrier, which
// then runs the new thread (`away` true; its own kernel thread keeps its
// mask until the thread goes home, went_home). Never returns.
[[noreturn]] void resume_start(uint32_t slot, bool away);
// On the slot's own kernel thread, about to resume its thread there: the
// creator's mask, if the thread started away.
void went_home(uint32_t slot);
// A thread of this slot may end on any carrier (its kernel thread idles for
// the rollback, note_parked): this is the runner that owns the pool.
bool ends_away(uint32_t slot);
// The slot of the calling thread, kNoSlot for any other.
uint32_t my_slot();
// Rollback, in the main thread: waits until every slot thread that ran in
// this execution is parked for the rollback (true), false when one cannot
// be (it is not in this process, or was created during the execution).
bool all_parked();
// Threads of the pool alive in this process that the model does not run
// (idle or ended): live checkpoints count tasks.
int idle_threads();

}  // namespace ctrl::agent::thread_pool
