// The time-stamp counter the program reads, made virtual (issue 22, item 11).
//
// Go's runtime seeds each thread's random generator (which idle thread
// steals work from which) from rdtsc (runtime.cputicks), and other runtimes
// and programs read the TSC directly, past every libc function: a replay, a
// new process, read other values and went elsewhere than the recording. So
// the agent answers rdtsc and rdtscp itself:
//
//   TSC = virtual monotonic time in ns (VirtualClock.h)
//
// the TSC of a 1 GHz machine whose clock is the virtual one: every read
// advances the virtual time by one tick like a clock read, so the values are
// monotonic, a function of the schedule, the same in a replay (the origin is
// in the trace), and consistent with the clocks (a program calibrating one
// against the other finds 1 GHz). rdtscp's TSC_AUX (ECX) is 0: CPU 0, node 0.
//
// Two ways in, giving the same values:
//  * Sites: the controller decodes every rdtsc and rdtscp of the program
//    and of its libraries but libc (SiteKind::Tsc, protocol/SiteTable.h);
//    the agent patches an int3 over each from its constructor on and
//    answers it from its SIGTRAP handler (InstructionSites.cpp): no visible
//    operation, no event. Always, on every machine: the kernel's trap below
//    may not work (a hypervisor that does not let the guest kernel make
//    rdtsc fault: prctl says yes and rdtsc reads the real counter), and one
//    path everywhere is the path every machine's tests check.
//  * The trap, for reads at no site (libc's, code the decoder could not
//    reach, code made at run time): the agent makes the instruction fault
//    (prctl PR_SET_TSC, PR_TSC_SIGSEGV: per thread, inherited by every
//    thread and process it creates) and answers it from its SIGSEGV
//    handler, first of all, before the program's own handler (or a
//    sanitizer's) could see it. It then executes one rdtsc of its own: if
//    its handler did not see it, the machine does not trap rdtsc, the prctl
//    is undone, and trapping() is false.
//
// Only while the virtual clock is on (a controlled process), from the
// agent's constructor on: reads before it (the dynamic loader's own, another
// library's constructor) stay real. A new image must find the TSC readable
// (the dynamic loader reads it first thing, with no handler yet): exec,
// posix_spawn, system and popen make it readable in the thread that starts
// it (InterposeSpawn.cpp, InterposeProcess.cpp), as does an execve at a
// system call site (a Go program's os/exec), and a child forked in an
// execution (it runs uncontrolled) reads the real TSC, at its sites too.
#pragma once

#include <signal.h>
#include <ucontext.h>

#include <cstdint>

namespace ctrl::agent::virtual_tsc {

// From now on this process reads the virtual TSC at its rdtsc sites, which
// the caller patches. False (and nothing changes) when virtual time is off.
bool start();
// Whether start() succeeded and real_in_this_process() was not called.
bool on();
// After start(): asks the kernel to make rdtsc fault in the calling thread
// (the main thread, in the agent's constructor) and everything it creates
// from now on. False when it refused. The caller then installs the SIGSEGV
// handler and calls confirm_trap().
bool request_trap();
// Executes one rdtsc: true when the SIGSEGV handler answered it (emulate()).
// Otherwise the kernel's yes was not worth anything on this machine: the
// TSC is made readable again, and trapping() stays false.
bool confirm_trap();
// Whether confirm_trap() found the trap working in this process.
bool trapping();
// A SIGSEGV: if it is an rdtsc or rdtscp this process trapped, writes the
// virtual value into the registers, moves RIP past the instruction and
// returns true.
bool emulate(int sig, const siginfo_t* info, ucontext_t* uc);
// The int3 of an rdtsc site (`length` bytes at RIP, rdtscp when
// `with_aux`): the same as emulate() and true when on(); false when this
// process reads the real TSC (the caller runs the original instruction).
bool answer_site(ucontext_t* uc, int length, bool with_aux);
// The calling thread reads the real TSC (before an exec or a spawn), or
// traps again (the exec failed, the spawn returned). No-ops when not
// trapping.
void readable_in_this_thread();
void trapped_in_this_thread();
// A child forked in an execution: the real TSC, at its sites and trapped.
void real_in_this_process();

}  // namespace ctrl::agent::virtual_tsc
