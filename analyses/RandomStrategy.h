// Random walk: every execution picks uniformly among the enabled threads at
// every step after the fixed prefix (if any), from a seed derived from
// (--seed, execution index), so any execution can be re-run alone. Never
// exhaustive. The same with TailPolicy::Pos is partial order sampling
// (TailChooser.h's PosChooser): each execution's priorities come from its
// seed alike.
#pragma once

#include "Strategy.h"

namespace ctrl {

class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed, shm::TailPolicy policy = shm::TailPolicy::Random)
      : seed_(seed), policy_(policy) {}
  std::string name() const override { return policy_ == shm::TailPolicy::Pos ? "pos" : "random"; }
  std::optional<ExecutionPlan> next() override;
  // Reads only what the constructor set: safe from any thread while another
  // calls next() (PartitionedSampling.h draws plans without a lock).
  std::optional<ExecutionPlan> plan_at(uint64_t n) const override { return plan(n); }
  // Nothing learnt: the plan number is all.
  bool restore_state(uint64_t next, const std::vector<uint64_t>&) override {
    index_ = next;
    return true;
  }

 private:
  uint64_t seed_;
  shm::TailPolicy policy_;
  uint64_t index_ = 0;
  ExecutionPlan plan(uint64_t index) const;
};

}  // namespace ctrl
