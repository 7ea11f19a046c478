// --monitor sober: every SC execution is checked for a load that x86-TSO
// could make read a stale value (SoberMonitor.h). A borderline execution is a
// bug of kind `tso-unsafe`, explained with source lines and the fence that
// would forbid it.
#pragma once

#include "session/ExecutionResult.h"
#include "SoberMonitor.h"

namespace ctrl {

class Symbolizer;

// Turns `r` (an execution without another bug) into a tso-unsafe bug when it
// is borderline. Returns whether it did.
bool check_tso_safety(ExecutionResult& r, Symbolizer& symbols);

// Turns `r` into the tso-unsafe bug `b` (find_borderline on r's events).
void report_borderline(ExecutionResult& r, const Borderline& b, Symbolizer& symbols);

}  // namespace ctrl
