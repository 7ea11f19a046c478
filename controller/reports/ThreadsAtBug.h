// Which threads a bug report lists, what it shows of each, and where it
// says the bug is: one answer for the headline and the backtraces, so that
// the two cannot disagree.
//
//  - Only the program's threads are listed: threads with no index in the
//    execution are the agent's own (its pool's idle slots, agent/ThreadPool.h),
//    which the program never created; the report says how many it left out.
//  - A finished thread has no frames worth showing: an ended thread waits
//    in a slot of the agent's pool on a stack of the agent's, or is gone,
//    so it is listed as finished, without a backtrace.
//  - The bug's place is the innermost program frame of the thread at the
//    bug, looked up at the call (a return address minus one), as in its
//    backtrace; without a backtrace, the site the outcome carries.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "session/ExecutionResult.h"

namespace ctrl {

class Symbolizer;

// Whether the report lists this thread at all.
bool listed_at_bug(const ThreadBacktrace& bt);
// Whether its frames are shown (listed threads only).
bool frames_shown_at_bug(const ThreadBacktrace& bt);
// The code address the report names for frame i of bt: the instruction
// itself when the unwinder knows it exactly, else the call before the
// return address.
uint64_t frame_address(const ThreadBacktrace& bt, size_t i);
// The address the headline names (a code address to describe), or nothing.
std::optional<uint64_t> bug_place(const ExecutionResult& r, const Symbolizer& symbols);

}  // namespace ctrl
