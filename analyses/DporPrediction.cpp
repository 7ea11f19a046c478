// Source-DPOR's speculation hook (Strategy::predict): the plans next() would
// return after the planned execution if no execution added a backtrack
// thread. Exact for the states below the branch point, which no execution
// that branches there changes; what a thread does at the branch point itself
// (its siblings' sleep sets hold it) is taken from the latest execution,
// where that thread's first step after the state is the one it was parked
// at. A wrong guess only makes a plan that the real one does not equal.
#include <algorithm>

#include "DporEvents.h"
#include "DporStrategy.h"

namespace ctrl {

using namespace dpor;

bool DporStrategy::step_from(uint64_t i, uint32_t t, Sleeper& out) const {
  for (uint64_t k = i + 1; k < stack_.size(); ++k) {
    const shm::Event& e = stack_[k].event;
    if (e.thread != t) continue;
    out = Sleeper{t, access_of(e), e};
    return true;
  }
  return false;
}

std::vector<ExecutionPlan> DporStrategy::predict(size_t n) const {
  std::vector<ExecutionPlan> plans;
  if (optimal_ || !started_ || exhausted_ || stack_.empty()) return plans;
  // Above the branch point the planned execution makes new states, with
  // nothing open unless its analysis adds something.
  uint64_t top = std::min<uint64_t>(branch_ + 1, stack_.size());
  for (uint64_t i = top; i-- > fixed_steps() && plans.size() < n;) {
    Position pos = stack_[i];  // a copy: done and tried grow as next() would make them
    uint64_t asleep = mask_of(pos.sleep);
    bool known = true;
    Sleeper ran{};
    // The planned execution's step at its branch point joins `tried` there
    // when it completes (DporStrategy::completed).
    if (i == branch_) {
      known = step_from(i, branch_thread_, ran);
      if (known) pos.tried.push_back(ran);
    }
    for (uint64_t open = pos.backtrack & ~pos.done & ~asleep; open && known && plans.size() < n;) {
      uint32_t q = uint32_t(__builtin_ctzll(open));
      open &= open - 1;
      ExecutionPlan plan;
      plan.policy = shm::TailPolicy::Sticky;
      branch_plan(plan, i, pos, asleep, q);
      plans.push_back(std::move(plan));
      known = step_from(i, q, ran);
      if (known) pos.tried.push_back(ran);
    }
  }
  return plans;
}

}  // namespace ctrl
