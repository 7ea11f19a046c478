// Plans, results and session settings as protocol/work.proto messages, for
// the ranks of --mpi (RemoteRanks.h, RankWorker.h). Arrays of plain structs
// (events, choices, ranges) travel as their bytes: every rank runs the same
// ctrl build, whose structs have one layout.
//
// Invariant: decode(encode(x)) runs the same execution as x (same_plan for
// plans; for results, every field a strategy, the report or the race check
// reads of a complete, blocked or cut execution).
#pragma once

#include <string>
#include <vector>

#include "Strategy.h"
#include "session/ExecutionResult.h"
#include "work.pb.h"

namespace ctrl {

void encode_plan(const ExecutionPlan& plan, proto::Plan& out);
ExecutionPlan decode_plan(const proto::Plan& in);
void encode_result(const ExecutionResult& r, proto::Result& out);
ExecutionResult decode_result(const proto::Result& in);

template <typename T>
std::string pod_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
// Throws InternalError when `bytes` is not a whole number of T.
template <typename T>
std::vector<T> pod_vector(const std::string& bytes);

}  // namespace ctrl
