// The vDSO's clocks, for a runtime that calls them directly (issue 22,
// item 11).
//
// Go's runtime does not call libc's clock_gettime: it finds
// __vdso_clock_gettime and __vdso_gettimeofday in the vDSO's symbol table at
// its start (after every constructor) and calls them (nanotime, walltime),
// so it read real time past the agent's virtual clock (VirtualClock.h):
// its seeds (extendRandom), its sysmon, its timers and its scheduler's
// decisions (how long a goroutine waited, which bucket of a histogram an
// atomic add hits) differed between a recording and its replay. The
// agent's constructor rewrites, through /proc/self/mem (mprotect refuses
// the vDSO; the pages become private copies):
// * those symbols' values in the vDSO's symbol table, to point at the
//   agent's virtual clock functions: a later lookup (Go's) finds them;
// * the first bytes of the vDSO's clock_gettime and gettimeofday, with a
//   jump to functions that make the system call: their code reads the TSC,
//   which faults in a controlled process and would read the virtual one
//   (VirtualTsc.h), so a caller that looked the vDSO up before (libc, for
//   its internal reads; its clock_gettime is the agent's anyway) reads the
//   real clocks, a system call each.
// Rollback does not put the vDSO back (MemorySnapshot: special mapping),
// and nothing needs it to.
#pragma once

namespace ctrl::agent::virtual_vdso {

// Only while the virtual clock is on. False when the vDSO could not be
// found or changed.
bool redirect_clocks();

}  // namespace ctrl::agent::virtual_vdso
