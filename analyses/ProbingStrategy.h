// The default strategy, "dpor+probes" (issue 22, item 18): a systematic
// search that, when it has not finished within its first kAloneExecutions
// executions, kAloneSteps steps or kAloneCuts executions cut by
// --max-steps, alternates its executions with probes:
// sampled executions, partial order sampling and PCT of depths 2 and 3 in
// turn (POS, PCT d=2, POS, PCT d=3, ...), kEagerProbes of them; then one
// probe per kLateSpacing executions of the search.
//
// Why: DPOR explores depth-first, reversing the races nearest the end of an
// execution first. A program with many races late in its executions keeps
// it below them forever, however shallow a bug before them (one
// preemption); executions cut by --max-steps keep it reversing the races of
// the loop that was cut. Sampling has no such order: POS runs two racing
// operations in either order about equally often however long the
// execution, PCT finds a bug of depth d among n threads in k steps with
// probability at least 1/(n k^(d-1)) per execution (PctStrategy.h). What
// each finds and when: docs/PERFORMANCE.md, "The default strategy".
//
// Invariants:
//  * The systematic search sees only its own executions, in the order it
//    planned them: its plans, its count of executions and exhaustive() are
//    what they are under --strategy dpor alone. A program it finishes within
//    the budget runs exactly as under --strategy dpor, with no probe.
//  * The search ends when the systematic one does: the next systematic plan
//    is asked for before each probe, so no probe runs after it is done.
//    exhaustive() is the systematic search's: probes never make a search
//    complete, nor incomplete.
//  * Whether a probe comes before the search's next execution depends only
//    on the counts of searched executions and probes, never on time.
//  * Probe plans are marked ExecutionPlan::probe; they depend on (seed,
//    probe index) and the execution lengths seen (PCT's estimates, learnt
//    from every execution), so a probe re-runs alone and its trace replays.
#pragma once

#include <memory>
#include <vector>

#include "Strategy.h"

namespace ctrl {

class ProbingStrategy final : public Strategy {
 public:
  // The budget the systematic search has alone, whichever runs out first:
  // executions (a few hundred short ones take well under a second), and
  // steps (long executions: 2-3 s of them at 300-500 thousand steps a
  // second; ten executions cut by the default --max-steps). Deterministic,
  // unlike a time budget: the same run probes at the same executions.
  static constexpr uint64_t kAloneExecutions = 256;
  static constexpr uint64_t kAloneSteps = 1000000;
  // And executions cut by --max-steps: a search with one can no longer be
  // exhaustive, and a lowered --max-steps may end it (not exhaustive) long
  // before the step budget.
  static constexpr uint64_t kAloneCuts = 8;
  // Probes every other execution at first: the shallow bugs they are for
  // are found within a few dozen (docs/PERFORMANCE.md, "The default
  // strategy"). After that many the chance of one more finding what all of
  // them missed is small, while at one probe per search execution they
  // halve the search's rate to the end; from then on they cost 1/kLateSpacing.
  static constexpr uint64_t kEagerProbes = 1024;
  static constexpr uint64_t kLateSpacing = 32;

  ProbingStrategy(std::unique_ptr<Strategy> systematic, uint64_t seed);
  std::string name() const override { return "dpor+probes"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  // The systematic search's predictions with the probes that will come
  // between them (assuming probing starts or not as it stands now).
  std::vector<ExecutionPlan> predict(size_t n) const override;
  bool exhaustive() const override { return systematic_->exhaustive(); }
  int completed_bound() const override { return systematic_->completed_bound(); }
  uint64_t fairness_cuts() const override { return systematic_->fairness_cuts(); }

  // Whether probes run now (the budget ran out).
  bool probing() const {
    return searched_ >= kAloneExecutions || searched_steps_ >= kAloneSteps || searched_cut_ >= kAloneCuts;
  }
  uint64_t probes_planned() const { return probes_; }

 private:
  std::unique_ptr<Strategy> systematic_;
  std::vector<std::unique_ptr<Strategy>> samplers_;  // POS, PCT d=2, PCT d=3
  // The systematic search's next plan, asked for before a probe.
  std::optional<ExecutionPlan> held_;
  bool started_ = false;
  bool last_probe_ = false;
  uint64_t searched_ = 0, searched_steps_ = 0, searched_cut_ = 0;
  uint64_t probes_ = 0;
  // The search's plans handed out (searched_ counts those completed), and
  // that count when the kEagerProbes-th probe was planned. The probes' rate
  // follows plans, so that it does not depend on when executions end.
  uint64_t planned_ = 0, late_from_ = 0;
  // Which sampler plans probe `index`.
  static size_t sampler_of(uint64_t index);
  // Whether a probe comes before the search's next plan, once probing, with
  // `searched` executions of the search and `probes` probes before it.
  static bool probe_due(uint64_t searched, uint64_t probes, uint64_t late_from);
};

}  // namespace ctrl
