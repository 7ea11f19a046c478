// The memory model's own bugs (data races, loads of uninitialised atomics:
// analyses/C11Races.h) turned into an execution's bug, for exploration and
// replay alike: a BugMonitor over the bugs the analysis found.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "Strategy.h"
#include "exploration/BugMonitor.h"
#include "session/ExecutionResult.h"

namespace ctrl {

class Symbolizer;

// Whether the model's bugs are looked for in execution `r`: one that ended
// normally, or in a failure of the program (not a deadlock or hang).
inline bool may_have_model_bug(const ExecutionResult& r) {
  return r.end == ExecutionResult::End::Complete || (r.end == ExecutionResult::End::Bug && !bug_is_stuck(r.kind));
}

// The first of `bugs` that is a bug of `r`, with its message naming the
// accesses' code and data: a data race, or a load of an initial value
// outside the program's modules (their static data is initialised) and not
// `initialised` in a way no event shows (Session::initialised_unseen: before
// the checkpoint, or a thread's static TLS). What `r` itself ended in is
// told after it (the model's bug is the cause). `name_data`, when given,
// names the data before the symbols do (a field).
std::optional<Bug> first_model_bug(const ExecutionResult& r, const std::vector<Bug>& bugs, const Symbolizer& symbols,
                                   const std::function<bool(uint64_t)>& initialised,
                                   const std::function<std::string(uint64_t)>& name_data = {});

// The model's bugs of each execution, as `found` gives them (the strategy's
// last_model_bugs(), or model_bugs_of() on a replayed execution).
class ModelBugMonitor : public BugMonitor {
 public:
  ModelBugMonitor(std::function<std::vector<Bug>(const ExecutionResult&)> found, const Symbolizer& symbols,
                  std::function<bool(uint64_t)> initialised)
      : found_(std::move(found)), symbols_(symbols), initialised_(std::move(initialised)) {}
  std::optional<Bug> examine(const ExecutionResult& r) override;

 private:
  std::function<std::vector<Bug>(const ExecutionResult&)> found_;
  const Symbolizer& symbols_;
  std::function<bool(uint64_t)> initialised_;
};

}  // namespace ctrl
