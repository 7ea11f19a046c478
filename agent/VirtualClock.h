// The clocks the program reads, made a function of its own history (issue
// 22, items 6 and 11). ffmpeg prints a status report when 500 ms have
// passed since the last one (print_report, stats_period): whether a step
// of its main loop takes that path depended on how fast the machine ran,
// so an execution continued from a live checkpoint, or one run on a loaded
// machine, or a replay, went elsewhere than its plan. Under ctrl the
// program reads virtual time instead:
//
//   clock value = origin(clock) + elapsed
//
// * origin: the controller's own real and monotonic clocks when it launched
//   the program (Header::clock_realtime_ns, clock_monotonic_ns), kept in the
//   trace, so that a replay reads exactly the values the recording read.
//   REALTIME (and its COARSE variant, and timespec_get, gettimeofday, time)
//   read the real origin; MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE and
//   BOOTTIME the monotonic one.
// * elapsed: advanced by kTickNs at every read and by the requested time at
//   every sleep (usleep, sleep, nanosleep, clock_nanosleep: ctrl turns them
//   into scheduling points that do not sleep). Threads run one at a time
//   under ctrl, so the sequence of reads, and so every value read, depends
//   on the schedule alone. Each execution starts with the elapsed time of
//   the checkpoint (start_execution), a restored live checkpoint with its
//   own (the agent's memory is copied with the process).
//
// Not virtual: CPU-time clocks (CLOCK_PROCESS_CPUTIME_ID, THREAD_CPUTIME_ID,
// clock()): a program that computes for some CPU time measures real work;
// a clock read by a raw system call instruction. rdtsc reads this clock too
// (VirtualTsc.h), and so does a runtime that calls the vDSO directly (Go:
// VirtualVdso.h). Programs the
// target starts get the real clocks (their agent is inert). The agent's own
// timing uses real_monotonic_ns().
#pragma once

#include <cstdint>

namespace ctrl::agent::virtual_clock {

// Every read advances the virtual time by this much: a program that waits
// for some time to pass by reading the clock in a loop still gets there.
inline constexpr int64_t kTickNs = 1000;

// Starts virtual time from the origin the controller wrote into the region
// (called by the agent's constructor, before it unsets CTRL_REGION_FD; a
// read before it, from another library's constructor, initialises from the
// same region itself).
void init_from_region(int region_fd);
// The fork server at the checkpoint: the elapsed time every execution
// starts with.
void checkpoint();
// An execution (a forked one, or a runner rolled back) starts here.
void start_execution();
// A sleep of `ns` nanoseconds, which ctrl does not make the program wait.
void advance(int64_t ns);
// The real monotonic clock, for the agent's own timing (a system call).
int64_t real_monotonic_ns();
// One read of the virtual monotonic clock, in ns (an rdtsc): advances it by
// kTickNs like clock_gettime. The real one when virtual time is off.
int64_t read_monotonic_ns();
// Whether the program reads virtual time (the region gave an origin).
bool on();
// The origin (real and monotonic, in ns); false when virtual time is off.
bool origin(int64_t* realtime_ns, int64_t* monotonic_ns);
// syscall(SYS_clock_gettime | SYS_gettimeofday | SYS_time, ...) through
// libc's syscall(): true with *result set when it answered.
bool answer_syscall(long number, const long* args, long* result);

}  // namespace ctrl::agent::virtual_clock
