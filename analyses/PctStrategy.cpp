#include "PctStrategy.h"

#include <algorithm>
#include <stdexcept>

#include "TailChooser.h"

namespace ctrl {

PctStrategy::PctStrategy(uint64_t seed, uint32_t depth, Points points) : seed_(seed), depth_(depth), points_(points) {
  if (depth < 1 || depth > shm::kMaxPctDepth)
    throw std::invalid_argument("--pct-depth must be from 1 to " + std::to_string(shm::kMaxPctDepth));
}

bool PctStrategy::counts_writes(uint64_t index) const {
  return points_ == Points::Writes || (points_ == Points::Both && index % 2 == 1);
}

ExecutionPlan PctStrategy::plan(uint64_t index) const {
  ExecutionPlan p = fixed_plan();
  p.policy = shm::TailPolicy::Pct;
  p.seed = execution_seed(seed_, index);
  p.pct_depth = depth_;
  // The change points come from a generator of their own (the agent's,
  // seeded with p.seed, draws the priorities): uniform over the steps
  // after the fixed prefix (write steps count from its end), distinct. A
  // range too short for d-1 distinct points gets as many as it has.
  uint64_t rng = p.seed ^ 0x5043545f43484e47ULL;  // "PCT_CHNG"
  uint64_t from = fixed_steps();
  uint64_t steps = estimated_steps();
  uint64_t range = steps > from ? steps - from : 0;
  if (counts_writes(index)) {
    p.pct_depth |= kPctWritePoints;
    from = 0;
    range = estimated_writes();
  }
  uint32_t count = uint32_t(std::min<uint64_t>(depth_ - 1, range));
  while (p.pct_change.size() < count) {
    uint64_t point = from + next_random(rng) % range;
    if (std::find(p.pct_change.begin(), p.pct_change.end(), point) == p.pct_change.end()) p.pct_change.push_back(point);
  }
  return p;
}

std::optional<ExecutionPlan> PctStrategy::next() { return plan(index_++); }

void PctStrategy::completed(const ExecutionSummary& s) {
  // The write steps after the prefix: PctChooser counts those of them
  // taken with a choice, never more. Not only those taken with a choice:
  // that count depends on the schedule, and the change points themselves
  // shorten it (a reader preempting a writer early ends the choices), so
  // the most seen could stay below what a later schedule needs. Without
  // events, every step.
  uint64_t writes = s.steps;
  if (s.events) {
    writes = 0;
    for (uint64_t i = std::min<uint64_t>(fixed_steps(), s.steps); i < s.steps; ++i)
      writes += pct_write_step(OpKind(s.events[i].kind));
  }
  // The first execution replaces the defaults; later ones can only lengthen them.
  uint64_t steps = seen_ ? std::max(estimated_steps(), s.steps) : std::max<uint64_t>(s.steps, 1);
  writes = seen_ ? std::max(estimated_writes(), writes) : std::max<uint64_t>(writes, 1);
  steps_.store(steps, std::memory_order_relaxed);
  writes_.store(writes, std::memory_order_relaxed);
  seen_ = true;
}

}  // namespace ctrl
