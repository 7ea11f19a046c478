#include "RandomStrategy.h"

#include "TailChooser.h"

namespace ctrl {

ExecutionPlan RandomStrategy::plan(uint64_t index) const {
  ExecutionPlan p = fixed_plan();
  p.policy = policy_;
  p.seed = execution_seed(seed_, index);
  return p;
}

std::optional<ExecutionPlan> RandomStrategy::next() { return plan(index_++); }

}  // namespace ctrl
