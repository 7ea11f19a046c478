#include "ProbingStrategy.h"

#include "PctStrategy.h"
#include "RandomStrategy.h"

namespace ctrl {

ProbingStrategy::ProbingStrategy(std::unique_ptr<Strategy> systematic, uint64_t seed)
    : systematic_(std::move(systematic)) {
  // Seeds of their own, so that POS and PCT never draw the same numbers.
  samplers_.push_back(std::make_unique<RandomStrategy>(seed, shm::TailPolicy::Pos));
  samplers_.push_back(std::make_unique<PctStrategy>(seed ^ 0x5052424550435432ULL, 2));  // "PRBEPCT2"
  samplers_.push_back(std::make_unique<PctStrategy>(seed ^ 0x5052424550435433ULL, 3));  // "PRBEPCT3"
}

size_t ProbingStrategy::sampler_of(uint64_t index) {
  // POS every other probe: it finds a shallow race however long the
  // execution and whatever loop runs beside it; PCT the rest.
  static constexpr size_t kTurns[] = {0, 1, 0, 2};
  return kTurns[index % 4];
}

bool ProbingStrategy::probe_due(uint64_t searched, uint64_t probes, uint64_t late_from) {
  if (probes < kEagerProbes) return true;
  return (probes - kEagerProbes + 1) * kLateSpacing <= searched - late_from;
}

std::optional<ExecutionPlan> ProbingStrategy::next() {
  if (!started_) {
    started_ = true;
    for (Strategy* s : {systematic_.get(), samplers_[0].get(), samplers_[1].get(), samplers_[2].get()}) {
      s->set_fixed_prefix(fixed_prefix());
      s->set_stop_check(stop_check());
    }
  }
  if (held_) {
    ExecutionPlan plan = std::move(*held_);
    held_.reset();
    last_probe_ = false;
    ++planned_;
    return plan;
  }
  auto plan = systematic_->next();
  if (!plan || !probing() || !probe_due(planned_, probes_, late_from_)) {
    last_probe_ = false;
    planned_ += plan.has_value();
    return plan;
  }
  held_ = std::move(plan);
  if (probes_ + 1 == kEagerProbes) late_from_ = planned_;
  auto probe = samplers_[sampler_of(probes_++)]->next();
  probe->probe = true;
  last_probe_ = true;
  return probe;
}

void ProbingStrategy::completed(const ExecutionSummary& s) {
  // PCT's change points are drawn over the longest execution seen, the
  // search's included. Each sampler reads every event: on a stop (no plan
  // is asked for again) those passes over a long execution only delay it.
  if (stop_requested_now()) return;
  for (auto& sampler : samplers_) sampler->completed(s);
  if (last_probe_) return;
  systematic_->completed(s);
  ++searched_;
  searched_steps_ += s.steps;
  searched_cut_ += !s.complete && !s.blocked;
}

std::vector<ExecutionPlan> ProbingStrategy::predict(size_t n) const {
  std::vector<ExecutionPlan> plans;
  if (held_) plans.push_back(*held_);
  std::vector<ExecutionPlan> searched = systematic_->predict(n);
  // The probes to come, by sampler: each sampler's own next plans in turn.
  std::vector<std::vector<ExecutionPlan>> sampled(samplers_.size());
  std::vector<size_t> used(samplers_.size(), 0);
  if (probing())
    for (size_t k = 0; k < samplers_.size(); ++k) sampled[k] = samplers_[k]->predict(n);
  // A probe comes next whether or not the search's next plan is known yet
  // (it runs unless the search is done).
  uint64_t index = probes_, late_from = late_from_;
  // The search's execution the next probe would come before: held_ is
  // planned already, so the one after it.
  uint64_t searched_before = planned_ + (held_ ? 1 : 0);
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
