#include "ProbeSchedule.h"

#include "PctStrategy.h"
#include "RandomStrategy.h"

namespace ctrl {

ProbeSchedule::ProbeSchedule(uint64_t seed) {
  // Seeds of their own, so that POS and PCT never draw the same numbers.
  samplers_.push_back(std::make_unique<RandomStrategy>(seed, shm::TailPolicy::Pos));
  samplers_.push_back(std::make_unique<PctStrategy>(seed ^ 0x5052424550435432ULL, 2));  // "PRBEPCT2"
  samplers_.push_back(std::make_unique<PctStrategy>(seed ^ 0x5052424550435433ULL, 3));  // "PRBEPCT3"
}

void ProbeSchedule::start(const std::vector<uint32_t>& fixed, const std::function<bool()>& stop_check) {
  for (auto& s : samplers_) {
    s->set_fixed_prefix(fixed);
    s->set_stop_check(stop_check);
  }
}

size_t ProbeSchedule::sampler_of(uint64_t index) {
  // POS every other probe: it finds a shallow race however long the
  // execution and whatever loop runs beside it; PCT the rest.
  static constexpr size_t kTurns[] = {0, 1, 0, 2};
  return kTurns[index % 4];
}

bool ProbeSchedule::probe_due(uint64_t searched, uint64_t probes, uint64_t late_from) {
  if (probes < kEagerProbes) return true;
  return (probes - kEagerProbes + 1) * kLateSpacing <= searched - late_from;
}

std::optional<ExecutionPlan> ProbeSchedule::before_search_plan() {
  // The execution budget by plans handed out: with one session every plan
  // before is learnt from when this is asked (planned_ == searched_), with
  // several some still run, and the probes must start at the same plan.
  const bool budget_spent =
      planned_ >= kAloneExecutions || searched_steps_ >= kAloneSteps || searched_cut_ >= kAloneCuts;
  if (!budget_spent || !probe_due(planned_, probes_, late_from_)) return std::nullopt;
  if (probes_ + 1 == kEagerProbes) late_from_ = planned_;
  auto probe = samplers_[sampler_of(probes_++)]->next();
  probe->probe = true;
  return probe;
}

void ProbeSchedule::completed(const ExecutionSummary& s, bool probe) {
  // PCT's change points are drawn over the longest execution seen, the
  // search's included.
  for (auto& sampler : samplers_) sampler->completed(s);
  if (probe) return;
  ++searched_;
  searched_steps_ += s.steps;
  searched_cut_ += !s.complete && !s.blocked;
}

}  // namespace ctrl
