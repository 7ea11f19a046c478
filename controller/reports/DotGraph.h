// `ctrl report TRACE --dot FILE`: one execution as a Graphviz execution graph
// (the picture data of ExecutionPicture.h): a node per drawn step, in a
// cluster per thread; edges
//   po      solid black, between a thread's consecutive drawn steps;
//   rf      green, store -> read (c11/rc11/ra), from an "init" node for the
//           location's initial value;
//   decides red, bold, the earlier step -> the later of a deciding pair, and
//           the step a blocked thread waits behind -> its pending operation;
//   flush   blue, dashed, a buffered store -> its flush (tso/pso).
//
// Invariant: every edge line carries a `class` attribute naming its kind
// (po, rf, decides, wait, flush), so that tools, and the tests, can count them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ctrl {

std::string dot_graph(const nlohmann::json& picture);

}  // namespace ctrl
