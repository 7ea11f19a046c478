// The data-race check of sequentially consistent executions (--model sc, and
// tso/pso, whose event log is in SC order too): analyses/HbRaces.h over each
// finished execution, with what the program's DWARF says is atomic
// (AtomicDeclarations.h, read once, at the first check). A race becomes the
// execution's bug (data-race, first_model_bug), followed by a line saying
// what was treated as atomic in that execution. A BugMonitor.
//
// A program that synchronises inside a library ctrl neither interposes nor
// instruments (OpenMP's libgomp, oneTBB, GLib: their locks and barriers are
// their own atomics and futexes, not pthread calls) is not race-checked:
// every access ordered only by that library would be reported as a race.
// The summary says so.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "DeclaredAtomics.h"
#include "exploration/BugMonitor.h"
#include "session/ExecutionResult.h"

namespace ctrl {

class Session;

// What the check did over an exploration, for the summary and the JSON.
struct DataRaceSummary {
  uint64_t executions = 0;           // executions race-checked
  std::string unchecked;             // why none was (empty: checked)
  std::vector<std::string> treated;  // what was treated as atomic ("x (DWARF atomic type)"), first ones
  uint64_t treated_more = 0;         // beyond those
  bool debug_info = true;            // false: the program has none (only atomic events were evidence)
  bool heap = false;                 // --races all: every address, not only the modules' static data
};

class DataRaceCheck : public BugMonitor {
 public:
  // `all` (--races all): every address is race-checked; otherwise only the
  // static data of the program and its libraries. malloc and free are not
  // visible: a block one thread frees and another gets back from malloc is
  // handed over through malloc's own lock, which no event shows, and would
  // look racy.
  DataRaceCheck(Session& session, bool all) : session_(session), all_(all) { summary_.heap = all; }
  // The execution's first race, when it may have one (may_have_model_bug: a
  // complete execution, or a bug other than a deadlock or a hang, which the
  // race then precedes). check() (BugMonitor) makes it the execution's bug.
  std::optional<Bug> examine(const ExecutionResult& r) override;
  const DataRaceSummary& summary() const { return summary_; }
  // --resume: the executions an earlier run race-checked are counted on.
  void resume_count(uint64_t executions) { summary_.executions = executions; }

 private:
  static constexpr size_t kMaxTreated = 8;
  void load();
  Session& session_;
  bool all_;
  std::optional<DeclaredAtomics> declared_;
  DataRaceSummary summary_;
  std::set<std::string> seen_;  // every entry of what was treated as atomic
};

}  // namespace ctrl
