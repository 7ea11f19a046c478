// `ctrl replay`: re-runs a saved trace's program with the trace's arguments
// and environment, forces its decisions, and checks each step's event
// against the recorded signature.
#pragma once

#include <string>

#include "session/Session.h"
#include "trace.pb.h"

namespace ctrl {

struct ReplayOutcome {
  // The trace's bug came back; for a trace without a bug (a schedule saved
  // by a stepping session), its decisions all ran (result: how it ended).
  bool reproduced = false;
  // When not reproduced: "replay diverged at step N: ...", one line. Bad
  // input (exit 2), not an internal error: the trace does not fit what the
  // program does here, whoever wrote it (an edit that keeps the checksum, a
  // change of files or environment since the recording).
  std::string divergence;
  ExecutionResult result;
};

// Throws UsageError when the trace does not fit the program on disk.
SessionConfig replay_config(const proto::Trace& trace, const std::string& agent, bool show_output);
ReplayOutcome replay(Session& session, const proto::Trace& trace);

}  // namespace ctrl
