// The memory model's own bugs (data races, loads of uninitialised atomics:
// analyses/C11Races.h) turned into an execution's bug, for exploration and
// replay alike.
#pragma once

#include <vector>

#include "ExecutionResult.h"
#include "Strategy.h"

namespace ctrl {

class Symbolizer;

// Makes the first of `bugs` that holds the bug of `r` (which ended without
// one): a data race, or a load of an initial value outside the program's
// modules (their static data is initialised). Names both accesses' code and
// the data.
void adopt_model_bug(ExecutionResult& r, const std::vector<Strategy::ModelBug>& bugs, const Symbolizer& symbols);

}  // namespace ctrl
