// Which store each read of a C11/RC11 (or release-acquire) execution read
// from, as the pictures draw it (HtmlReport.h, DotGraph.h).
//
// Derived from the execution's events and the Choices its plan gave the
// agent (ExecutionResult::choices, a trace's `choices`), the way the agent
// applied them (SharedRegion.h, Choice):
//  - ReadFrom: the store performed at step `from`, or the location's value
//    before any store of the execution (kFromInit);
//  - Promise (c11): the first later store of thread `from` to the location
//    that wrote the promised value;
//  - Default, and every read without a Choice: what memory held, that is the
//    latest store to the location that wrote memory (a store placed before
//    an earlier one in modification order, kNotMoLast, does not).
//
// Invariants: one entry per read (a load, the read of a read-modify-write or
// compare-exchange, locked instructions and plain loads included), in step
// order; `store` is an index into `events` or kInitialValue.
#pragma once

#include <cstddef>
#include <vector>

#include "SharedRegion.h"

namespace ctrl {

struct ReadFrom {
  static constexpr size_t kInitialValue = SIZE_MAX;
  size_t read = 0;   // index into events
  size_t store = 0;  // index into events, or kInitialValue
};

std::vector<ReadFrom> reads_from(const std::vector<shm::Event>& events, const std::vector<shm::Choice>& choices);

}  // namespace ctrl
