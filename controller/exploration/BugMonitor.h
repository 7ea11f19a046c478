// A check of a finished execution for a bug the program did not report
// itself: the memory model's bugs (data races and uninitialised loads under
// c11/rc11: ModelBugs.h), the race check under sc/tso/pso (DataRaceCheck.h)
// and Sober's TSO safety (TsoSafety.h). Each returns the typed Bug every
// layer reads (protocol/Bug.h); the exploration and the replay adopt it the
// same way, whichever monitor found it.
#pragma once

#include <optional>

#include "Bug.h"
#include "session/ExecutionResult.h"

namespace ctrl {

class BugMonitor {
 public:
  virtual ~BugMonitor() = default;
  // The monitor's bug in execution `r`, if it has one; `r` is unchanged.
  virtual std::optional<Bug> examine(const ExecutionResult& r) = 0;
  // Makes `bug` (examine's, on this `r`) the bug of `r`. Default: adopt_bug.
  virtual void adopt(ExecutionResult& r, Bug bug) const;
  // examine, then adopt what it found. Returns whether it found a bug.
  bool check(ExecutionResult& r);
};

// Makes `bug` the bug of `r`: its accesses get their thread, operation, code
// and data from r's events, and r is reported at the latest of them (the
// step at which the bug became certain). The bug's message is r's message.
void adopt_bug(ExecutionResult& r, Bug bug);

// The access of `bug` with the highest step (nullptr when it has none).
const BugAccess* latest_access(const Bug& bug);

}  // namespace ctrl
