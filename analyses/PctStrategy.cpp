#include "PctStrategy.h"

#include <algorithm>
#include <stdexcept>

#include "TailChooser.h"

namespace ctrl {

PctStrategy::PctStrategy(uint64_t seed, uint32_t depth) : seed_(seed), depth_(depth) {
  if (depth < 1 || depth > shm::kMaxPctDepth)
    throw std::invalid_argument("--pct-depth must be from 1 to " + std::to_string(shm::kMaxPctDepth));
}

ExecutionPlan PctStrategy::plan(uint64_t index) const {
  ExecutionPlan p = fixed_plan();
  p.policy = shm::TailPolicy::Pct;
  p.seed = execution_seed(seed_, index);
  p.pct_depth = depth_;
  // The change points come from a generator of their own (the agent's,
  // seeded with p.seed, draws the priorities): uniform over the steps
  // after the fixed prefix, distinct. A range too short for d-1 distinct
  // steps gets as many as it has.
  uint64_t rng = p.seed ^ 0x5043545f43484e47ULL;  // "PCT_CHNG"
  uint64_t from = fixed_steps();
  uint64_t range = steps_ > from ? steps_ - from : 0;
  uint32_t count = uint32_t(std::min<uint64_t>(depth_ - 1, range));
  while (p.pct_change.size() < count) {
    uint64_t step = from + next_random(rng) % range;
    if (std::find(p.pct_change.begin(), p.pct_change.end(), step) == p.pct_change.end()) p.pct_change.push_back(step);
  }
  return p;
}

std::optional<ExecutionPlan> PctStrategy::next() { return plan(index_++); }

void PctStrategy::completed(const ExecutionSummary& s) {
  // The first execution replaces the default; later ones can only lengthen it.
  steps_ = seen_ ? std::max(steps_, s.steps) : std::max<uint64_t>(s.steps, 1);
  seen_ = true;
}

std::vector<ExecutionPlan> PctStrategy::predict(size_t n) const {
  std::vector<ExecutionPlan> plans;
  for (size_t k = 0; k < n; ++k) plans.push_back(plan(index_ + k));
  return plans;
}

}  // namespace ctrl
