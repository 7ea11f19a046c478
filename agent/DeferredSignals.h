// Signals to a switched-out thread wait until it has its turn again.
//
// A controlled thread that hands the token on parks in the agent until its
// next turn. A signal the program handles, delivered there (the Go
// runtime's SIGURG, which its sysmon thread sends to preempt a goroutine),
// would run the program's handler inside the agent's scheduler, in a thread
// that is not the current one: the handler's own visible operations then
// began a second turn under the parked one, and the thread ended up asleep
// in its park with the token gone (a false hang).
//
// So a thread that switches out blocks every signal but the managed ones
// (Signals.h) and SIGKILL/SIGSTOP first (`hold`), and unblocks exactly what
// it blocked once its turn has come (`release`): a signal sent meanwhile,
// by another controlled thread's step or from outside, was pending all
// along and is delivered there, at a point of the thread's own where it
// holds the token, before the operation it was chosen for. Its handler's
// visible operations are then ordinary steps of the thread; the caller
// (Runtime::begin) decides that operation again when they took any.
//
// Invariants: the mask is the agent's only while the thread is switched
// out (between `hold` and `release` it runs no code of the program's); a
// signal a controlled thread sends to a switched-out one is delivered at
// the receiver's next turn, whatever the timing, so executions replay.
// Held only while the program has a handler for a signal other than the
// managed ones (`note_program_handler`): otherwise there is nothing to
// defer, and a switch makes no extra system call.
//
// Not for a thread switched out at a signal wait (sigsuspend, pause,
// sigwait: KernelWaits.h): its probe reads the thread's mask, and the call,
// made after its turn, must still find the signal pending.
//
// Not explored: the delivery of such a signal at any other point than the
// receiver's next turn (a real kernel could deliver it while the receiver
// waits, interrupting a futex wait with EINTR).
#pragma once

#include <cstdint>

namespace ctrl::agent::deferred_signals {

// The program has (or installs) a handler for `sig`; `handler` is its
// sa_handler, SIG_DFL and SIG_IGN being no handler.
void note_program_handler(int sig, void (*handler)(int));
// At the start of an execution: whether any non-managed signal has a
// handler already (installed before the checkpoint, by raw system calls the
// agent did not see: the Go runtime's).
void scan_program_handlers();
// Before switching out: blocks the deferred signals; returns what it
// blocked (0: nothing, no handler or no signal to block).
uint64_t hold();
// At the thread's turn: unblocks `held`, delivering what is pending.
void release(uint64_t held);
// Whether the program has a handler of its own (hold() has work to do).
bool program_handlers();

}  // namespace ctrl::agent::deferred_signals
