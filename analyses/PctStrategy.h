// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, ASPLOS 2010). Every execution gets random distinct thread
// priorities and d-1 priority-change points drawn uniformly and distinct
// over the execution's estimated length k; the agent then always runs the
// enabled thread of highest priority, and at the i-th change point drops the
// thread about to run to priority i, below every initial priority
// (TailChooser.h's PctChooser). A bug of depth d (d ordering constraints
// between steps) among n threads is then found by each execution with
// probability at least 1/(n k^(d-1)).
//
// k is estimated as the paper does, from the executions seen: the most
// steps any earlier execution took (kDefaultSteps before the first). Plans
// depend on (--seed, execution index) and that estimate only, so an
// execution re-runs alone given the same estimate, and its trace replays.
// With a fixed prefix (the debugger's explore) the change points fall after
// it. Never exhaustive.
#pragma once

#include "Strategy.h"

namespace ctrl {

class PctStrategy final : public Strategy {
 public:
  // The length assumed before any execution finished.
  static constexpr uint64_t kDefaultSteps = 1000;

  // 1 <= depth <= shm::kMaxPctDepth (else std::invalid_argument).
  PctStrategy(uint64_t seed, uint32_t depth);
  std::string name() const override { return "pct"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  // The next indices' plans under the current length estimate: exact
  // unless an execution still to finish is longer than every one before.
  std::vector<ExecutionPlan> predict(size_t n) const override;

  uint32_t depth() const { return depth_; }
  // The length the next plan's change points are drawn over.
  uint64_t estimated_steps() const { return steps_; }

 private:
  uint64_t seed_;
  uint32_t depth_;
  uint64_t index_ = 0;
  uint64_t steps_ = kDefaultSteps;
  bool seen_ = false;  // an execution finished: steps_ is the longest seen
  ExecutionPlan plan(uint64_t index) const;
};

}  // namespace ctrl
