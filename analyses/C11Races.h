// The bugs C11 and RC11 define beyond what the program asserts, found in a
// consistent execution graph:
//  * a data race: two accesses to overlapping bytes by different threads, at
//    least one a write and at least one non-atomic, not ordered by
//    happens-before, per byte. A plain access (an instruction site) to bytes
//    that some atomic operation of the execution also accesses is taken for an inline
//    atomic (gcc compiles relaxed, acquire and release loads and stores to
//    plain movs) and counted in `inline_atomic`, never reported: ctrl cannot
//    tell it from a non-atomic access, and a false race is worse than a
//    missed one;
//  * an uninitialised load: an atomic read of a location's value from
//    before any store of the execution when no store (plain or atomic)
//    to it happens before the read. Whether that value was initialised
//    anyway (static data is) is the controller's call.
#pragma once

#include <cstdint>
#include <vector>

#include "C11Consistency.h"
#include "ExecutionGraph.h"
#include "Strategy.h"

namespace ctrl {

// The first race in execution order (by its later access), if any.
std::vector<Strategy::ModelBug> find_data_races(const ExecutionGraph& g, const HappensBefore& hb,
                                                uint64_t* inline_atomic = nullptr);
// Each atomic read of a location's initial value that no store happens before.
std::vector<Strategy::ModelBug> find_initial_value_reads(const ExecutionGraph& g, const HappensBefore& hb);

// Both, in an execution rebuilt from its events and the Choices it ran with
// (a replayed trace): races first. A promised read constrains nothing.
// Under --model ra the orders are read as release-acquire (RaSaturation.h).
std::vector<Strategy::ModelBug> model_bugs_of(const shm::Event* events, uint64_t n,
                                              const std::vector<shm::Choice>& choices,
                                              shm::MemoryModel model = shm::MemoryModel::C11);

}  // namespace ctrl
