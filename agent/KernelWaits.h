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
//  * Other operations (WAKE_OP, the PI family) and futex_waitv end the
//    execution as unsupported with a message: never silently wrong.
//
// Other calls that may wait for another thread (or for the world outside)
// are visible operations whose enabledness is a readiness probe, taken by
// the deciding thread while every other thread is parked, so it depends on
// the schedule alone:
//  * read/readv/recv*/accept* on a pipe, socket or character device that is
//    not non-blocking: ready when poll(POLLIN) says so; write/writev/send*
//    on a pipe or socket: POLLOUT (event FdWait, addr = descriptor). Not
//    for the descriptors the program was started with (stdin, stdout ...):
//    only the outside changes their readiness, at its own pace, so a call
//    on one is always enabled and blocks natively when chosen (a probe
//    would make the schedule depend on timing); a non-blocking write to
//    one is made whole, waiting for room, since how much of it the pipe
//    takes also depends on timing;
//  * poll/ppoll/select/pselect/epoll_wait(epoll_pwait): a zero-timeout probe
//    on copies of the sets (epoll: the epoll descriptor polled for POLLIN,
//    so no event is consumed) (FdWait, addr = first descriptor or 0);
//  * rt_sigtimedwait (sigwait, sigwaitinfo, sigtimedwait), rt_sigsuspend and
//    pause: a signal of the set (not of the mask) pending for the thread or
//    the process, from /proc/self/task/TID/status (SignalWait);
//  * wait4/waitid without WNOHANG: waitid(WNOHANG | WNOWAIT) (ChildWait).
// A call with a finite time-out is always enabled; chosen while not ready
// it returns its time-out (0, or EAGAIN for sigtimedwait) at once, unless
// it was the only thread that could run: then it waits in the kernel with
// its real time-out. Signals sent between threads (kill, tgkill, tkill,
// pthread_kill, raise) are visible operations (SignalSend), so the
// exploration sees the sender/waiter race.
//
// When no thread can run but some wait in such calls, the wait is for
// something outside the program (stdin, a pipe another process writes, a
// child's exit): the oldest such call is chosen and blocks in the kernel
// for real, keeping the token. That is the one place where timing enters;
// the choice itself is deterministic, so traces replay. A deadlock is
// reported only when every waiting thread waits on the model (futexes and
// pthread objects), where it is certain.
//
// Not seen: libc's own internal calls (fread's read, system()'s wait);
// only the exported functions and raw system calls are.
//
// FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME do not change matching: a
// private and a shared wait on one address of this process are the same
// queue here (a shared futex woken by another process is not modelled).
//
// Calls reach this through libc's syscall() (GLib's g_futex, libstdc++'s
// atomic waits) and through inline `syscall` instruction sites (libgomp).
#pragma once

#include <sys/types.h>
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

// At the agent's start, before the program runs: records the pipes,
// sockets and character devices the program was started with. Reads and
// writes on them (or on dups of them) wait for the outside only: they are
// always enabled and block natively when chosen; a non-blocking write to
// one is made whole (see "Outside" in KernelWaits.cpp).
void note_outside_descriptors();

// Called by the deciding thread before each decision: takes the readiness
// probe of every thread waiting in a probed call (ExecutionModel::set_ready).
void probe_kernel_waits();
// A live checkpoint's restore gave thread `t` a new kernel thread id.
void kernel_waits_thread_renamed(uint32_t t, pid_t tid);

// A signal sent through a libc function that names no kernel thread id
// (pthread_kill, raise): `send(arg)` is made as a visible SignalSend of the
// calling controlled thread. False (and nothing sent) outside executions.
bool send_signal_visibly(uint64_t site, int sig, long (*send)(void*), void* arg, long& result);

}  // namespace ctrl::agent
