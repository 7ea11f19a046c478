#include "RoundRobinStrategy.h"

namespace ctrl {

std::optional<ExecutionPlan> RoundRobinStrategy::next() {
  if (done_) return std::nullopt;
  done_ = true;
  ExecutionPlan plan = fixed_plan();
  plan.policy = shm::TailPolicy::RoundRobin;
  return plan;
}

}  // namespace ctrl
