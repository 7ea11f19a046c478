// Round-robin: at every step (after the fixed prefix, if any) the next
// enabled thread after the previous one.
// Deterministic, so one execution says all it can; the strategy stops after it.
#pragma once

#include "Strategy.h"

namespace ctrl {

class RoundRobinStrategy final : public Strategy {
 public:
  std::string name() const override { return "round-robin"; }
  std::optional<ExecutionPlan> next() override;

 private:
  bool done_ = false;
};

}  // namespace ctrl
