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

#include "ProbeSchedule.h"
#include "Strategy.h"

namespace ctrl {

class ProbingStrategy final : public Strategy {
 public:
  // The probes' budget and rate (ProbeSchedule.h).
  static constexpr uint64_t kAloneExecutions = ProbeSchedule::kAloneExecutions;
  static constexpr uint64_t kAloneSteps = ProbeSchedule::kAloneSteps;
  static constexpr uint64_t kAloneCuts = ProbeSchedule::kAloneCuts;
  static constexpr uint64_t kEagerProbes = ProbeSchedule::kEagerProbes;
  static constexpr uint64_t kLateSpacing = ProbeSchedule::kLateSpacing;

  ProbingStrategy(std::unique_ptr<Strategy> systematic, uint64_t seed);
  std::string name() const override { return "dpor+probes"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  bool exhaustive() const override { return systematic_->exhaustive(); }
  int completed_bound() const override { return systematic_->completed_bound(); }
  uint64_t fairness_cuts() const override { return systematic_->fairness_cuts(); }

  // Whether probes run now (the budget ran out).
  bool probing() const { return probes_->probing(); }
  uint64_t probes_planned() const { return probes_->probes_planned(); }

  // Partitioned exploration (-j N, controller/exploration/PartitionedDpor.h)
  // runs the search's work items on strategies of its own and the probes
  // from this schedule, as it stands after the executions shown so far.
  // After it, only the systematic search's accessors may be used.
  const Strategy& systematic() const { return *systematic_; }
  std::unique_ptr<ProbeSchedule> release_probes() { return std::move(probes_); }

 private:
  std::unique_ptr<Strategy> systematic_;
  std::unique_ptr<ProbeSchedule> probes_;
  // The systematic search's next plan, asked for before a probe.
  std::optional<ExecutionPlan> held_;
  bool started_ = false;
  bool last_probe_ = false;
};

}  // namespace ctrl
