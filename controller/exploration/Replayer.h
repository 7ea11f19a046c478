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
  std::string divergence;  // "replay diverged at step N: ..." when not reproduced
  ExecutionResult result;
};

// Throws UsageError when the trace does not fit the program on disk.
SessionConfig replay_config(const proto::Trace& trace, const std::string& agent, bool show_output);
ReplayOutcome replay(Session& session, const proto::Trace& trace);

}  // namespace ctrl
