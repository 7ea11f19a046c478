// The time-stamp counter the program reads, made virtual (issue 22, item 11).
//
// Go's runtime seeds each thread's random generator (which idle thread
// steals work from which) from rdtsc (runtime.cputicks), and other runtimes
// and programs read the TSC directly, past every libc function: a replay, a
// new process, read other values and went elsewhere than the recording. So
// the agent makes the instruction fault (prctl PR_SET_TSC, PR_TSC_SIGSEGV:
// per thread, inherited by every thread and process it creates) and answers
// it from its SIGSEGV handler, first of all, before the program's own
// handler (or a sanitizer's) could see it:
//
//   TSC = virtual monotonic time in ns (VirtualClock.h)
//
// the TSC of a 1 GHz machine whose clock is the virtual one: every read
// advances the virtual time by one tick like a clock read, so the values are
// monotonic, a function of the schedule, the same in a replay (the origin is
// in the trace), and consistent with the clocks (a program calibrating one
// against the other finds 1 GHz). rdtscp's TSC_AUX (ECX) is 0: CPU 0, node 0.
//
// Only while the virtual clock is on (a controlled process), from the
// agent's constructor on: reads before it (the dynamic loader's own, another
// library's constructor) stay real. A new image must find the TSC readable
// (the dynamic loader reads it first thing, with no handler yet): exec,
// posix_spawn, system and popen make it readable in the thread that starts
// it (InterposeSpawn.cpp, InterposeProcess.cpp), as does an execve at a
// system call site (a Go program's os/exec), and a child forked in an
// execution (it runs uncontrolled) reads the real TSC.
#pragma once

#include <signal.h>
#include <ucontext.h>

namespace ctrl::agent::virtual_tsc {

// The calling thread (the main thread, in the agent's constructor) and
// everything it creates from now on trap rdtsc. False when it could not
// (virtual time off, or the kernel refused).
bool start();
// Whether start() succeeded in this process.
bool trapping();
// A SIGSEGV: if it is an rdtsc or rdtscp this process trapped, writes the
// virtual value into the registers, moves RIP past the instruction and
// returns true.
bool emulate(int sig, const siginfo_t* info, ucontext_t* uc);
// The calling thread reads the real TSC (before an exec or a spawn), or
// traps again (the exec failed, the spawn returned). No-ops when not
// trapping.
void readable_in_this_thread();
void trapped_in_this_thread();

}  // namespace ctrl::agent::virtual_tsc
