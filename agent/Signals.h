// The agent's hold on synchronous signals in executions.
//
// Executions are not traced, so the agent itself notices fatal signals: it
// installs its handlers for the fault signals (and SIGTRAP, which its
// instruction sites use) when an execution starts, and keeps them installed
// whatever the program does: the program's sigaction/signal calls for these
// signals are recorded and honoured by calling its handler from ours, and
// its mask calls cannot block them (a blocked synchronous fault would kill the
// process without a word).
#pragma once

#include <signal.h>

#include <cstdint>

namespace ctrl::agent {

bool managed_signal(int sig);
// Process-wide, at the start of an execution.
void install_execution_signal_handlers();
// Process-wide, from the agent's constructor, for the virtual TSC
// (VirtualTsc.h): SIGTRAP for its rdtsc sites, SIGSEGV when rdtsc traps.
// `sig` only; the program's action (a sanitizer's handler installed before)
// is recorded and called from ours, and masks the program sets cannot block
// it.
void take_early_for_tsc(int sig);
// Per thread: an alternate stack, so a stack overflow is still reported.
// Maps the alternate signal stacks of every thread index (once).
void reserve_alternate_stacks();
// The calling thread, index `index`, takes its alternate signal stack;
// returns it as sigaltstack reports it. (A thread that has it already, a
// recycled one in a runner, makes no second system call.)
// Also unblocks the managed signals in the calling thread, unless
// `unblocked` says its start set a mask without them already.
stack_t prepare_thread_signals(uint32_t index, bool unblocked = false);
// The calling thread can receive the managed signals (its instruction and
// system call sites trap), whatever mask it inherited.
void unblock_managed_signals();
// The managed signals as a kernel sigset (bit sig-1).
uint64_t managed_signal_set();
// Calls the program's own action for `sig` if it has one; false when the
// program left it at the default (the signal is fatal) or ignores it.
bool forward_to_program(int sig, siginfo_t* info, void* context);

}  // namespace ctrl::agent
