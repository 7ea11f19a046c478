#include "PreemptionBoundedStrategy.h"

#include <algorithm>

namespace ctrl {

bool PreemptionBoundedStrategy::preempts(uint64_t k, uint32_t t) const {
  if (k == 0) return false;
  uint32_t prev = stack_[k - 1].thread;
  return t != prev && (stack_[k].enabled >> prev & 1);
}

uint32_t PreemptionBoundedStrategy::preemptions_before(uint64_t k) const {
  // The fixed prefix's own preemptions are not the strategy's: the bound
  // counts those from the first free decision on.
  uint32_t n = 0;
  for (uint64_t i = std::max<uint64_t>(1, fixed_steps()); i < k; ++i) n += preempts(i, stack_[i].thread);
  return n;
}

std::optional<ExecutionPlan> PreemptionBoundedStrategy::next() {
  ExecutionPlan plan = fixed_plan();
  plan.policy = shm::TailPolicy::Sticky;
  if (!started_) {
    started_ = true;
    branch_ = 0;
    return plan;
  }
  for (;;) {
    for (uint64_t k = stack_.size(); k-- > fixed_steps();) {
      Position& pos = stack_[k];
      uint32_t used = preemptions_before(k);
      for (uint64_t open = pos.enabled & ~pos.tried; open; open &= open - 1) {
        uint32_t t = uint32_t(__builtin_ctzll(open));
        if (used + preempts(k, t) > bound_) continue;
        pos.tried |= uint64_t(1) << t;
        plan.prefix.clear();
        for (uint64_t i = 0; i < k; ++i) plan.prefix.push_back(stack_[i].thread);
        plan.prefix.push_back(t);
        branch_ = k;
        return plan;
      }
    }
    // Every schedule within this bound ran: the next bound starts over.
    completed_bound_ = int(bound_);
    if (bound_ >= max_bound_) return std::nullopt;
    ++bound_;
    stack_.clear();
    branch_ = 0;
    return plan;
  }
}

void PreemptionBoundedStrategy::completed(const ExecutionSummary& summary) {
  uint64_t from = std::min<uint64_t>(branch_, summary.steps);
  if (from < stack_.size()) {
    stack_.resize(from + 1);
    if (from < summary.steps) stack_[from].thread = summary.events[from].thread;
  }
  for (uint64_t k = stack_.size(); k < summary.steps; ++k) {
    const shm::Event& e = summary.events[k];
    stack_.push_back(Position{e.thread, e.enabled, uint64_t(1) << e.thread});
  }
  if (stack_.size() > summary.steps) stack_.resize(summary.steps);
}

}  // namespace ctrl
