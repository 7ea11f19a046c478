// The memory model's own bugs (data races, loads of uninitialised atomics:
// analyses/C11Races.h) turned into an execution's bug, for exploration and
// replay alike.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "session/ExecutionResult.h"
#include "Strategy.h"

namespace ctrl {

class Symbolizer;

// Whether the model's bugs are looked for in execution `r`: one that ended
// normally, or in a failure of the program (not a deadlock or hang).
inline bool may_have_model_bug(const ExecutionResult& r) {
  return r.end == ExecutionResult::End::Complete ||
         (r.end == ExecutionResult::End::Bug && r.kind != "deadlock" && r.kind != "hang");
}

// Makes the first of `bugs` that holds the bug of `r`: a data race, or a load of an initial value outside the program's
// modules (their static data is initialised) and not `initialised` in a
// way no event shows (Session::initialised_unseen: before the checkpoint,
// or a thread's static TLS). Names the accesses' code and data.
// `name_data`, when given, names the data before the symbols do (a field).
void adopt_model_bug(ExecutionResult& r, const std::vector<Strategy::ModelBug>& bugs, const Symbolizer& symbols,
                     const std::function<bool(uint64_t)>& initialised,
                     const std::function<std::string(uint64_t)>& name_data = {});

}  // namespace ctrl
