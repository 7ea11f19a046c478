#include "exploration/Shrinker.h"

#include <algorithm>

namespace ctrl {

namespace {

bool preempts(const std::vector<shm::Event>& events, size_t k) {
  if (k == 0) return false;
  uint32_t prev = events[k - 1].thread;
  return events[k].thread != prev && (events[k].enabled >> prev & 1);
}

bool same_bug(const ExecutionResult& a, const ExecutionResult& b) {
  return b.end == ExecutionResult::End::Bug && a.kind == b.kind && a.site == b.site;
}

}  // namespace

uint32_t count_preemptions(const std::vector<shm::Event>& events) {
  uint32_t n = 0;
  for (size_t k = 1; k < events.size(); ++k) n += preempts(events, k);
  return n;
}

ShrinkStats shrink(Session& session, ExecutionResult& bug, uint32_t budget, uint64_t fixed,
                   std::chrono::steady_clock::duration max_time) {
  auto until = std::chrono::steady_clock::now() + max_time;
  ShrinkStats stats;
  stats.before = stats.after = count_preemptions(bug.events);
  bool improved = true;
  while (improved && stats.runs < budget && stats.after > 0) {
    improved = false;
    for (size_t k = std::max<uint64_t>(1, fixed); k < bug.events.size() && stats.runs < budget; ++k) {
      if (!preempts(bug.events, k)) continue;
      if (stats.runs > 0 && std::chrono::steady_clock::now() >= until) return stats;
      // Ctrl-C, SIGTERM or the time limit: the bug as found so far is reported
      // at once (a run would only notice the stop after it started).
      if (session.should_stop()) return stats;
      // Same decisions up to k, then stay with the preempted thread and let
      // the sticky policy go on from there.
      ExecutionPlan plan;
      plan.policy = shm::TailPolicy::Sticky;
      for (size_t i = 0; i < k; ++i) plan.prefix.push_back(bug.events[i].thread);
      plan.prefix.push_back(bug.events[k - 1].thread);
      ++stats.runs;
      ExecutionResult r = session.run(plan, bug.execution);
      if (r.end == ExecutionResult::End::Interrupted) return stats;
      if (!same_bug(bug, r)) continue;
      uint32_t p = count_preemptions(r.events);
      if (p >= stats.after) continue;
      r.execution = bug.execution;
      bug = std::move(r);
      stats.after = p;
      improved = true;
      break;
    }
  }
  return stats;
}

}  // namespace ctrl
