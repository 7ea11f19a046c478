// The calling process's pid without a system call (getpid costs about half a
// microsecond on this project's machines, and the end of every execution in
// a runner asked it about ten times).
//
// Invariant: own_pid() == getpid() in every process. The pid is cached in a
// page of its own that the kernel empties in any child created without
// CLONE_VM (MADV_WIPEONFORK): a forked child (the fork server's executions
// and runners, live checkpoints, the program's own forks, raw or not) finds
// it empty and asks the kernel once. The page is mapped by the agent's
// constructor, before the checkpoint; without it, every call asks the kernel.
// (A vfork child shares the page, and its parent's memory: it runs no agent
// code but exec and _exit.)
#pragma once

#include <sys/types.h>

namespace ctrl::agent {

// Maps the cache (once, before the checkpoint).
void own_pid_init();
pid_t own_pid();

}  // namespace ctrl::agent
