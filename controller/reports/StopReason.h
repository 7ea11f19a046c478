// Whether a search was complete or stopped by a limit, for the JSON
// (stopped_by_limit), JUnit, and --limit-exit's exit status.
//
// Complete: the strategy had nothing more to run (every schedule of its
// search ran, within a preemption bound if one was asked), or the search
// stopped at a bug. Stopped by a limit: --max-executions was reached while
// the strategy had more to run, --time-limit ran out, some execution was
// cut by --max-steps (its schedules beyond the cut never ran), or a signal
// (SIGINT, SIGTERM) stopped ctrl.
#pragma once

#include <string>

#include "exploration/Explorer.h"

namespace ctrl {

// "" when complete; else "max-executions", "time-limit", "max-steps" or
// "signal" (the first that applies, in that order).
std::string limit_keyword(const ExplorationReport& r);
// The same said in words ("--max-executions 100 reached"), "" when complete.
std::string stop_reason_text(const ExplorationReport& r);

}  // namespace ctrl
