// Whether a parsed trace is one this ctrl could have written: every field
// against what ctrl accepts. A trace is input from anyone (its checksum
// proves nothing about who wrote it), and a well-formed protobuf can still
// name a thread ctrl never has, an operation kind that does not exist, or
// a model ctrl does not know; replaying it must end in one line and exit 2,
// never in an internal error.
//
// Checked: program (absolute path, hex content hash, no NUL in arguments,
// environment or directory, omitted variables in order and in range),
// options (strategy, model, visible, monitor, output kinds, --fail-on-exit,
// pct depth, shared ranges), bug thread, decisions and signatures (as many
// of each, threads below kMaxThreads and matching, known operation kinds
// and flags), choices (no more than decisions, known kinds and flags,
// stores read from earlier steps, promises by known threads), the bug's
// kind (one this ctrl knows: a trace of a newer ctrl naming another is
// refused rather than replayed to a certain divergence).
// Not checkable here: whether the steps' sites and addresses are the
// program's; an edit there makes the replay diverge: one line, exit 2 as
// well (Replayer.h).
#pragma once

#include <string>

#include "trace.pb.h"

namespace ctrl {

// Throws UsageError "'PATH': trace file is invalid (WHAT)" at the first
// field that is not acceptable.
void validate_trace(const std::string& path, const proto::Trace& trace);

}  // namespace ctrl
