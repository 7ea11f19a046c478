// --monitor sober: every SC execution is checked for a load that x86-TSO
// could make read a stale value (SoberMonitor.h). A borderline execution is a
// bug of kind tso-unsafe, explained with source lines and the fence that
// would forbid it; its witness is the interleaving up to the load.
#pragma once

#include "SoberMonitor.h"
#include "exploration/BugMonitor.h"
#include "session/ExecutionResult.h"

namespace ctrl {

class Symbolizer;

class TsoSafetyMonitor : public BugMonitor {
 public:
  explicit TsoSafetyMonitor(Symbolizer& symbols) : symbols_(symbols) {}
  // The execution's first borderline load (r: an execution without another bug).
  std::optional<Bug> examine(const ExecutionResult& r) override;
  // Also cuts r's events after the load: the witness.
  void adopt(ExecutionResult& r, Bug bug) const override;

 private:
  Symbolizer& symbols_;
};

// The borderline `b` found in r's events, as its tso-unsafe bug with the
// message that explains it.
Bug explain_borderline(const ExecutionResult& r, const Borderline& b, Symbolizer& symbols);

}  // namespace ctrl
