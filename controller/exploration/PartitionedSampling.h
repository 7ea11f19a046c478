// Partitioned exploration of the seeded strategies (random, pos, pct) under
// -j N: the work is the strategy's plans 1..limit-1 (plan 0 ran on the
// explorer's session first), cut into ranges of consecutive plan numbers,
// the work items. N-1 helper sessions (HelperSession.h), each on a thread
// of its own, and the explorer's session (while it waits for a result)
// claim ranges in order and run each plan of their range on their own
// target; the plan of number m comes from the strategy itself
// (Strategy::plan_at, which may run while the explorer asks or teaches the
// strategy under strategy_mutex(): the sessions never wait for that).
//
// The explorer still goes through the plans one by one in their order, as
// with -j 1, and takes the result of plan n from whichever session ran it:
// its counts, its verdict and its bugs are those of one session (the first
// bug in plan order ends a run without --keep-going, whatever session found
// it first, so two runs of any width report the same one).
//
// Invariants (what keeps -j N identical to -j 1):
//  - A result is taken only for a plan equal (same_plan) to the one the
//    strategy gives in its turn; under pct a plan drawn before a longer
//    execution raised the strategy's estimate differs and is run again by
//    the explorer ("replanned").
//  - Only complete, blocked and cut executions are taken (handed_over); a
//    bug is run again on the explorer's session, which then holds it for
//    the report, the trace and the shrinker.
//  - Every plan number below the limit is, at any time, exactly one of:
//    unclaimed (at or above next_, or in a range given back), claimed by a
//    helper (running or waiting in its range), claimed by the explorer
//    (own_), done (results_) or taken. A helper that stops gives the rest
//    of its range back, so the explorer never waits for a plan nobody runs.
//  - Helpers claim no plan more than `window` ahead of the explorer's turn,
//    the explorer none more than twice that (bounded memory); none is
//    claimed past the first bug a helper found without --keep-going
//    (except by the explorer for its own turn), and none once stopped.
//  - An execution that touches the outside (HelperSession.h) turns the
//    partition off: results not yet taken are dropped, the explorer runs
//    every later plan itself.
//  - Helper threads are stopped (Tracer::kStopSignal) and joined by the
//    destructor: their targets are gone when it returns.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "Strategy.h"
#include "exploration/ParallelStats.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"

namespace ctrl {

class PartitionedSampling {
 public:
  struct Limits {
    uint64_t limit = 0;            // plan numbers below it are run (--max-executions)
    uint64_t chunk = 1;            // plans per range
    uint64_t index_base = 0;       // execution number of plan 0
    bool keep_going = false;       // a bug does not end the exploration
    uint64_t first = 1;            // the first plan number handed out (--resume: after the first run here)
    unsigned remote_sessions = 0;  // sessions of other ranks (--mpi): they widen the window
  };
  // Plan number m's plan (Strategy::plan_at), called from any session's
  // thread without strategy_mutex().
  using PlanAt = std::function<std::optional<ExecutionPlan>(uint64_t)>;
  // Starts `helpers` helper sessions of `config` (runner_cpu: the explorer
  // session's CPU); each first runs `first` and must repeat `first_result`.
  // `deadline`: the exploration's time limit (max: none).
  PartitionedSampling(const SessionConfig& config, unsigned helpers, std::chrono::steady_clock::time_point deadline,
                      std::vector<shm::Signature> expected, ExecutionPlan first, ExecutionResult first_result,
                      PlanAt plan_at, Limits limits);
  ~PartitionedSampling();
  PartitionedSampling(const PartitionedSampling&) = delete;
  PartitionedSampling& operator=(const PartitionedSampling&) = delete;

  // Held by the explorer around every call of the strategy's next() and
  // completed(); plan_at is called without it (Strategy.h).
  std::mutex& strategy_mutex() { return strategy_mutex_; }

  // The result of plan number `n`, `plan` (what the strategy gives in its
  // turn), when a session ran it and it may be taken; meanwhile runs plans
  // of the explorer's own ranges with `run_own`. nullopt: the explorer runs
  // `plan` itself.
  using RunOwn = std::function<ExecutionResult(const ExecutionPlan&, uint64_t index)>;
  std::optional<ExecutionResult> take(uint64_t n, const ExecutionPlan& plan, const RunOwn& run_own);
  // After an execution on the explorer's session: off when it touched the outside.
  void check_own(const ExecutionResult& r, bool files_changed);
  // The exploration ends (or shrinks a bug): no more plans are run.
  void stop();
  SpeculationStats stats() const;

  // ---- Sessions of other ranks (--mpi, parallel/RemoteRanks.h) ----
  // They claim, run and give back ranges like helpers, from outside: a
  // range claimed for them is held until each of its plans is delivered or
  // given back.
  std::optional<std::pair<uint64_t, uint64_t>> claim_remote();
  std::optional<ExecutionPlan> plan_for(uint64_t m) { return plan_of(m); }
  // Plan `m` (`plan`) ran on another rank; `outside`: it touched files, a
  // descriptor or a child (touches_outside), which turns the partition off.
  void deliver(uint64_t m, ExecutionPlan plan, ExecutionResult r, bool outside);
  void give_back_remote(uint64_t first, uint64_t last);
  // False once stopped or turned off: nothing more is handed out.
  bool active() const;

 private:
  using Range = std::pair<uint64_t, uint64_t>;  // [first, last)
  struct Done {
    ExecutionPlan plan;
    ExecutionResult result;
  };
  void helper(size_t k);
  // A range to run, or nullopt when none may be claimed now (lock held).
  // `by_explorer`: for the explorer to run ahead (a wider window).
  std::optional<Range> claim(bool by_explorer);
  void give_back(Range r);                // lock held
  void turn_off(const std::string& why);  // lock held
  std::optional<ExecutionPlan> plan_of(uint64_t m);

  SessionConfig config_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<shm::Signature> expected_;
  ExecutionPlan first_;
  ExecutionResult first_result_;
  PlanAt plan_at_;
  Limits limits_;
  uint64_t window_;

  std::mutex strategy_mutex_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t next_ = 1;             // the first plan number never claimed
  uint64_t turn_ = 1;             // the plan number the explorer waits for
  uint64_t cutoff_ = UINT64_MAX;  // no plan past it is started (a helper's bug)
  std::set<Range> returned_;      // ranges given back, unclaimed again
  std::set<uint64_t> own_;        // claimed by the explorer, not run yet
  std::map<uint64_t, Done> results_;
  bool quit_ = false;
  // Who waits on changed_: a result wakes the explorer only when it is the
  // one its turn waits for, a turn wakes helpers only when they may claim.
  bool explorer_waiting_ = false;
  unsigned helpers_waiting_ = 0;
  SpeculationStats stats_;
  // Per session (the explorer's first): seconds waiting for work, and when
  // it was ready and when it ended (max: still running).
  std::vector<double> idle_;
  std::vector<std::chrono::steady_clock::time_point> began_, ended_;
  std::vector<std::thread> helpers_;
};

}  // namespace ctrl
