// The data-race check of sequentially consistent executions (--model sc, and
// tso/pso, whose event log is in SC order too): analyses/HbRaces.h over each
// finished execution, with what the program's DWARF says is atomic
// (AtomicDeclarations.h, read once, at the first check). A race becomes the
// execution's bug ("data-race", adopt_model_bug), followed by a line saying
// what was treated as atomic in that execution.
#pragma once

#include <optional>

#include "DeclaredAtomics.h"
#include "ExecutionResult.h"

namespace ctrl {

class Session;

class DataRaceCheck {
 public:
  explicit DataRaceCheck(Session& session) : session_(session) {}
  // Makes the execution's first race its bug, when it may have one
  // (may_have_model_bug: a complete execution, or a bug other than a
  // deadlock or a hang, which the race then precedes).
  void check(ExecutionResult& r);

 private:
  const DeclaredAtomics& declared();
  Session& session_;
  std::optional<DeclaredAtomics> declared_;
};

}  // namespace ctrl
