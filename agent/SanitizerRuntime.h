// A sanitizer's runtime in the target (ASan, TSan, UBSan ...). The controller
// preloads ASan's or TSan's before the agent (they must come first), so their
// interceptors see the program's calls first and call the agent's. What the
// agent does about them:
//  * A sanitizer's report is a bug of the execution: its reports go to a
//    file of the agent's (its report fd), and the controller asks the runtime
//    to abort after the first one (abort_on_error, halt_on_error); the
//    agent's abort() then ends the execution with the report's first lines
//    as the bug's message, and copies the whole report to stderr.
//  * Threads the runtime starts for itself (TSan's background thread) run
//    uncontrolled: they are not the program's, and they never end.
//  * TSan's pthread_create interceptor starts the program's thread in a
//    routine of its own, then waits on a futex until the new thread has run
//    that routine's prologue (registering itself with TSan). The new thread
//    therefore runs the prologue at once, uncontrolled, and waits for its
//    first turn only when the prologue calls the program's routine (the
//    wrapper's parameter is made to call the agent's entry instead).
// Invariant: without a sanitizer runtime nothing here costs more than one
// test of a flag.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace ctrl::agent::sanitizer {

// At the agent's start (after its real functions are resolved).
void init();
// A sanitizer runtime is in the process.
bool present();
// `path` (a loaded object's) is a sanitizer's runtime (ASan, TSan, UBSan ...).
bool runtime_library(const char* path);
// At each execution's start: this execution has reported nothing yet.
void start_execution();
// pthread_create was called from `site` by the runtime itself, not by its
// pthread_create interceptor on the program's behalf.
bool internal_thread(uint64_t site);
// The program's start routine and argument, behind a runtime's own start
// routine.
struct ProgramStart {
  void* (*fn)(void*);
  void* arg;
};
// pthread_create(..., fn, arg) from the runtime's interceptor: when `fn` is
// TSan's start routine (it waits for the new thread's prologue), returns
// the program's routine and argument it would call, and makes it call
// `entry` (with a null argument) in their place. TSan's parameter block
// begins with the program's routine and argument (stable since 2012 and
// checked: the routine must be code outside the runtime).
bool take_wrapped_start(void* (*fn)(void*), void* arg, void* (*entry)(void*), ProgramStart* program);
// Starts such a thread with the real pthread_create, uncontrolled, but able
// to take the traps of the sites it runs into (the runtime starts it with
// every signal blocked).
int start_internal_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
// The runtime's report in this execution, if any: its first line that
// names the error, the frames after it and its SUMMARY line, cut to `size`
// bytes with a terminating zero (returns the length; 0 when none). The
// whole report is copied to stderr once.
size_t report(char* out, size_t size);

}  // namespace ctrl::agent::sanitizer
