// What TSO and PSO share in the analyses (TsoAnalysis.cpp, PsoAnalysis.cpp):
// DPOR over chronological traces (ModelAnalysis.h), and the sleep-set rule
// for flushes: a flush commutes with its own thread's next step (its loads
// read its own bytes before and after it; a step waiting for the drain was
// not enabled when it was put to sleep), and other threads' flushes with a
// load forwarded whole from the sleeper's buffer.
#pragma once

#include "ModelAnalysis.h"

namespace ctrl {

class StoreBufferAnalysis : public ModelAnalysis {
 public:
  Exploration exploration() const override { return Exploration::Dependence; }
  bool store_buffers() const override { return true; }
  bool keeps_asleep(const shm::Event& ran, uint32_t t, const Access& next, ForwardsWhole whole) const override {
    return flush_keeps_asleep(ran, t, next, whole);
  }
  // The rule itself, which the agent's StoreBufferModel applies too
  // (without the registry: the agent does not link the graph analyses).
  static bool flush_keeps_asleep(const shm::Event& ran, uint32_t t, const Access& next, ForwardsWhole whole) {
    return OpKind(ran.kind) == OpKind::Flush && (ran.owner == t || (only_reads(next) && whole(t, next)));
  }
};

}  // namespace ctrl
