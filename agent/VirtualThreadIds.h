// The kernel thread ids the program reads, made a function of its schedule
// (issue 22, item 11).
//
// Rust's panic hook prints the panicking thread's id (`thread '<unnamed>'
// (28769) panicked`), from libc's gettid(), and under --visible all the
// formatting's stack stores are steps, as many as the id has digits: a
// worker's panic while other threads ran was replayed with another number
// of steps where the kernel gave the replay's threads ids of another
// length (pids wrap at pid_max: 32768 here), and diverged. Under ctrl,
// gettid() and syscall(SYS_gettid) answer
//
//   main thread (T0): the process id, as the kernel's (gettid() == getpid())
//   thread Tn, n > 0: kVirtualTidBase + n
//
// Threads are numbered in creation order (the model's index, which the
// thread pool keeps per creation order), so an id depends on the schedule
// alone; kVirtualTidBase is pid_max's ceiling (2^22), so no real thread or
// process has one of these ids and a call that takes a thread id (tgkill,
// tkill, through libc or syscall()) is given the real one back. The main
// thread's id stays the process's (a program compares them), which is not
// virtual: where a program formats it, see README. Not translated: thread
// ids in /proc paths, sched_setaffinity, setpriority and the like (they get
// ESRCH for a virtual id), and the raw gettid of a runtime's own system
// call instruction (Go's, which it pairs with its own raw tgkill).
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace ctrl::agent::virtual_thread_ids {

inline constexpr pid_t kVirtualTidBase = pid_t(1) << 22;

// The calling thread's id as the program reads it; false when it is the
// kernel's (not a controlled thread).
bool own(pid_t* tid);
// A thread id the program passes to the kernel: the real one for a
// virtual id, `tid` itself otherwise.
pid_t to_real(pid_t tid);

}  // namespace ctrl::agent::virtual_thread_ids
