// Iterative context bounding (Musuvathi & Qadeer, PLDI'07): every schedule
// with at most 0 preemptions, then at most 1, ... up to the bound. A
// preemption is a switch away from a thread that could have gone on; the
// agent's sticky tail never preempts, so each plan is a prefix whose last
// decision is the one new choice. Depth-first and stateless, like DPOR, but
// without its reduction: within the bound every schedule runs, so the
// search is complete for that bound (a bound and DPOR's reduction do not mix
// soundly without extra backtracking). From a fixed prefix, only its
// suffix branches, and the bound counts the preemptions from the first free
// decision on.
#pragma once

#include <vector>

#include "Strategy.h"

namespace ctrl {

class PreemptionBoundedStrategy final : public Strategy {
 public:
  explicit PreemptionBoundedStrategy(uint32_t bound) : max_bound_(bound) {}
  std::string name() const override { return "preemption-bounded"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& summary) override;
  // Every schedule within the final bound ran; not every schedule.
  bool exhaustive() const override { return false; }
  // The largest bound whose schedules all ran, or -1.
  int completed_bound() const override { return completed_bound_; }

 private:
  struct Position {
    uint32_t thread = 0;
    uint64_t enabled = 0;
    uint64_t tried = 0;
  };
  bool preempts(uint64_t k, uint32_t t) const;
  uint32_t preemptions_before(uint64_t k) const;

  uint32_t max_bound_;
  uint32_t bound_ = 0;
  int completed_bound_ = -1;
  bool started_ = false;
  uint64_t branch_ = 0;
  std::vector<Position> stack_;
};

}  // namespace ctrl
