// Makes a failing schedule easier to read before it is reported: tries, one
// preemption at a time, to let the preempted thread go on instead, and keeps
// every variant that still ends in the same bug (same kind, same place) with
// fewer preemptions. A preemption is a switch away from a thread that could
// have gone on (it was enabled at that step).
#pragma once

#include <chrono>
#include <cstdint>

#include "session/ExecutionResult.h"
#include "session/Session.h"

namespace ctrl {

uint32_t count_preemptions(const std::vector<shm::Event>& events);

struct ShrinkStats {
  uint32_t before = 0, after = 0;  // preemptions
  uint32_t runs = 0;               // executions spent
};

// Replaces `bug` by a shorter-to-read equivalent when it finds one. At most
// `budget` executions, and none started after `max_time` (a real program's
// execution can take minutes: 64 of them would delay the report by hours).
// The first `fixed` decisions (an exploration's fixed prefix) are kept as
// they are.
ShrinkStats shrink(Session& session, ExecutionResult& bug, uint32_t budget = 64, uint64_t fixed = 0,
                   std::chrono::steady_clock::duration max_time = std::chrono::seconds(10));

}  // namespace ctrl
