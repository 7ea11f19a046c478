// The probes of the default strategy, dpor+probes (ProbingStrategy.h): the
// samplers that plan them (POS, PCT d=2, POS, PCT d=3, ...) and the rule of
// when one comes before the systematic search's next plan. Apart from the
// search itself so that partitioned exploration (-j N,
// controller/exploration/PartitionedDpor.h) runs the same probes beside its
// work items: there one schedule serves every session, asked before each
// search plan any of them takes.
//
// Invariants:
//  * Whether a probe comes before the search's next plan depends only on
//    the counts of the search's plans handed out, the steps and cuts of its
//    executions learnt from, and the probes planned, never on time. So
//    under -j the probes come at the same plans as with -j 1 but when the
//    budget is spent by steps or cuts (which executions are learnt from by
//    then depends on the sessions' timing).
//  * Probe plans are marked ExecutionPlan::probe and depend on (seed, probe
//    index) and the execution lengths learnt (PCT's estimates, from every
//    execution, the search's included), so a probe re-runs alone and its
//    trace replays.
//  * Not thread-safe: PartitionedDpor holds a lock around every call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "Strategy.h"

namespace ctrl {

class ProbeSchedule {
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

  explicit ProbeSchedule(uint64_t seed);
  // Before the first plan: the exploration's fixed prefix and stop check,
  // handed on to the samplers.
  void start(const std::vector<uint32_t>& fixed, const std::function<bool()>& stop_check);

  // Whether probes run now (the budget ran out).
  bool probing() const {
    return searched_ >= kAloneExecutions || searched_steps_ >= kAloneSteps || searched_cut_ >= kAloneCuts;
  }
  // Asked when the search has a next plan, before it is handed out: the
  // probe to run first, if one is due (counted as planned).
  std::optional<ExecutionPlan> before_search_plan();
  // The search's next plan is handed out.
  void search_planned() { ++planned_; }
  // A finished execution: every one teaches the samplers (PCT's length
  // estimates); the search's own also count towards its budget.
  void completed(const ExecutionSummary& s, bool probe);
  uint64_t probes_planned() const { return probes_; }

 private:
  std::vector<std::unique_ptr<Strategy>> samplers_;  // POS, PCT d=2, PCT d=3
  uint64_t searched_ = 0, searched_steps_ = 0, searched_cut_ = 0;
  uint64_t probes_ = 0;
  // The search's plans handed out (searched_ counts those learnt from), and
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
