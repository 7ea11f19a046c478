#include "RandomStrategy.h"

#include "TailChooser.h"

namespace ctrl {

std::optional<ExecutionPlan> RandomStrategy::next() {
  ExecutionPlan plan = fixed_plan();
  plan.policy = shm::TailPolicy::Random;
  plan.seed = execution_seed(seed_, index_++);
  return plan;
}

}  // namespace ctrl
