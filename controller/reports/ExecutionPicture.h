// What a picture of one execution shows (`ctrl report --html/--dot`,
// HtmlReport.h, DotGraph.h), as JSON data both drawings read:
//
//  - lanes: one per program thread that has a step (a store buffer's flush
//    is drawn in the lane of the thread whose buffer it is), by thread index;
//  - steps: every step (an execution longer than kAllStepsUpTo: the steps
//    the text report shows, steps_to_show, with `hidden_before` counting
//    the steps left out just before each), with its operation named as the
//    text report names it, its source line, function and full place, and
//    its marks: "preempts", "decides" (CauseMarks.h), "buffered" (a TSO/PSO
//    store that went into its thread's buffer), "flush", "forwarded";
//  - pairs: the deciding pairs (earlier, later); waits: a thread blocked at
//    the end against the step it waits behind;
//  - rf (models c11, rc11, ra): each read and the store it read from
//    (ReadsFrom.h), null for the location's initial value;
//  - buffers (tso, pso): each buffered store and the flush that took it to
//    memory (null: still buffered at the end), matched per thread and
//    location in FIFO order, as both buffers drain.
//
// Invariants: a step's "i" is its index in the execution's events, and every
// index in pairs, waits, rf and buffers names an event of the execution (a
// drawing skips those it did not draw); lanes are sorted by thread, each
// step's "lane" indexes them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session/ExecutionResult.h"

namespace ctrl {

class Symbolizer;

struct PictureSource {
  const ExecutionResult* result = nullptr;
  std::vector<shm::Choice> choices;  // the plan's (c11, rc11, ra), else empty
  std::string model;                 // sc, tso, pso, c11, rc11, ra
  std::string program;
  std::string trace_path;
};

inline constexpr size_t kAllStepsUpTo = 2000;

nlohmann::json execution_picture(const PictureSource& source, Symbolizer& symbols);

}  // namespace ctrl
