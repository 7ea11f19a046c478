// System calls in which a thread would wait in the kernel for another thread
// of the program (futexes, for now): modelled, never slept in.
//
// A thread blocked in the kernel keeps the scheduling token while the
// thread that would wake it stays parked: ctrl would report a hang. So a
// futex call of a controlled thread becomes visible operations of the
// ExecutionModel instead of a system call:
//  * FUTEX_WAIT(_BITSET) compares the word with the expected value on the
//    thread's turn, while every other thread is parked (so the outcome
//    depends only on the schedule): unequal, it returns EAGAIN at once
//    (event FutexWait, kFailed); equal, the thread becomes a waiter on the
//    address (event FutexWait), not enabled until a wake picks it, and its
//    next step FutexWoken returns 0. A wait with a time-out is always
//    enabled; chosen while not woken, it returns ETIMEDOUT (kTimedOut), as
//    the timed pthread operations do.
//  * FUTEX_WAKE(_BITSET) picks up to n waiters on the address, oldest
//    first, bitsets honoured, and returns how many (event FutexWake, aux).
//  * FUTEX_REQUEUE / FUTEX_CMP_REQUEUE wake some waiters and move others to
//    the second address (event FutexRequeue, aux = that address).
//  * Other operations (WAKE_OP, the PI family, LOCK_PI2, WAITV) end the
//    execution as unsupported with a message: never silently wrong.
// FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME do not change matching: a
// private and a shared wait on one address of this process are the same
// queue here (a shared futex woken by another process is not modelled).
//
// Calls reach this through libc's syscall() (GLib's g_futex, libstdc++'s
// atomic waits) and through inline `syscall` instruction sites (libgomp).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace ctrl::agent {

// Performs system call `nr` with arguments `a` for the calling controlled
// thread in an execution if it is one the agent models, leaving the
// kernel's result (a value, or -errno) in `result`. False: not modelled,
// the caller makes the call itself.
bool modelled_syscall(long nr, const long a[6], uint64_t site, long& result);

// A `syscall` instruction site at `address` trapped in a controlled thread
// of an execution (InstructionSites' SIGTRAP path), registers in `uc`: the
// agent performs the call itself, as the instruction would (result in rax,
// rcx and r11 as the kernel leaves them, rip after the instruction).
// Modelled calls go to the model; rt_sigaction and rt_sigprocmask follow the
// agent's signal rules (the mask is the one the signal frame restores);
// anything else is made with the same arguments, so its behaviour does not
// change. False for the calls that cannot be made from a signal handler
// (clone, fork, exec, exit, rt_sigreturn): the instruction then runs itself.
bool perform_syscall_site(ucontext_t* uc, uint64_t address);

}  // namespace ctrl::agent
