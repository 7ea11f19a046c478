// The kernel's 16 random bytes of a new process (the AT_RANDOM auxiliary
// vector entry), made a function of the trace (issue 22, item 11).
//
// Go's runtime takes its random seeds from them (fastrandseed, which with
// each thread's TSC seeds the generator deciding which idle thread steals
// from which, and when an allocation is sampled for the memory profile; the
// hash keys of its maps): every process read other ones, so a replay
// allocated and scheduled elsewhere than its recording. The agent's
// constructor overwrites them with bytes derived from the virtual clock's
// origin (VirtualClock.h), which is new in every session and kept in the
// trace: different from one `ctrl attach` to the next, the same in the
// replay of a trace. Before the constructor, the dynamic loader and libc
// have read them already (the stack protector's canary, pointer mangling):
// those stay random, and no schedule depends on them.
#pragma once

namespace ctrl::agent::startup_random {

// Only while the virtual clock is on (a controlled process).
void make_replayable();

}  // namespace ctrl::agent::startup_random
