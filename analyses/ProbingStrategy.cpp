#include "ProbingStrategy.h"

namespace ctrl {

ProbingStrategy::ProbingStrategy(std::unique_ptr<Strategy> systematic, uint64_t seed)
    : systematic_(std::move(systematic)), probes_(std::make_unique<ProbeSchedule>(seed)) {}

std::optional<ExecutionPlan> ProbingStrategy::next() {
  if (!started_) {
    started_ = true;
    systematic_->set_fixed_prefix(fixed_prefix());
    systematic_->set_stop_check(stop_check());
    probes_->start(fixed_prefix(), stop_check());
  }
  if (held_) {
    ExecutionPlan plan = std::move(*held_);
    held_.reset();
    last_probe_ = false;
    probes_->search_planned();
    return plan;
  }
  auto plan = systematic_->next();
  std::optional<ExecutionPlan> probe;
  if (plan) probe = probes_->before_search_plan();
  if (!probe) {
    last_probe_ = false;
    if (plan) probes_->search_planned();
    return plan;
  }
  held_ = std::move(plan);
  last_probe_ = true;
  return probe;
}

void ProbingStrategy::completed(const ExecutionSummary& s) {
  // Each sampler reads every event: on a stop (no plan is asked for again)
  // those passes over a long execution only delay it.
  if (stop_requested_now()) return;
  probes_->completed(s, last_probe_);
  if (!last_probe_) systematic_->completed(s);
}

}  // namespace ctrl
