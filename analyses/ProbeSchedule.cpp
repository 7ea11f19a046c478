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

std::vector<ExecutionPlan> ProbeSchedule::predict(size_t n, const std::optional<ExecutionPlan>& held,
                                                  const std::vector<ExecutionPlan>& searched) const {
  std::vector<ExecutionPlan> plans;
  if (held) plans.push_back(*held);
  // The probes to come, by sampler: each sampler's own next plans in turn.
  std::vector<std::vector<ExecutionPlan>> sampled(samplers_.size());
  std::vector<size_t> used(samplers_.size(), 0);
  if (probing())
    for (size_t k = 0; k < samplers_.size(); ++k) sampled[k] = samplers_[k]->predict(n);
  // A probe comes next whether or not the search's next plan is known yet
  // (it runs unless the search is done).
  uint64_t index = probes_, late_from = late_from_;
  // The search's execution the next probe would come before: held is
  // planned already, so the one after it.
  uint64_t searched_before = planned_ + (held ? 1 : 0);
  for (size_t i = 0; plans.size() < n; ++i, ++searched_before) {
    if (probing() && probe_due(searched_before, index, late_from)) {
      if (index + 1 == kEagerProbes) late_from = searched_before;
      size_t k = sampler_of(index++);
      if (used[k] >= sampled[k].size()) break;
      ExecutionPlan probe = sampled[k][used[k]++];
      probe.probe = true;
      plans.push_back(std::move(probe));
    }
    if (i >= searched.size()) break;
    plans.push_back(searched[i]);
  }
  if (plans.size() > n) plans.resize(n);
  return plans;
}

}  // namespace ctrl
