// Parallel exploration (-j N): speculative execution beside a sequential
// explorer. The Explorer keeps its loop (plan, run, analyse) on its own
// session; N-1 helper sessions, each a launched target with its own fork
// server, run ahead the plans the strategy predicts (Strategy::predict).
// When the explorer's real next plan equals one a helper ran or is running,
// the explorer takes that result instead of running the plan; while it
// waits for one still running, it runs another predicted plan itself. A
// result nobody asks for is dropped. Used for the systematic strategies;
// random, pos and pct are partitioned by seed instead (PartitionedSampling.h).
//
// Invariants (what keeps -j N identical to -j 1):
//  - A result is handed over only for a plan equal field by field
//    (same_plan) to the real one, and an execution is a function of its
//    plan: the helpers' targets are launched with the same program,
//    arguments, environment, descriptors and address layout. Each helper
//    first runs the explorer's first plan and must log exactly the events of
//    the explorer's first execution, or speculation is turned off.
//  - Only complete, blocked and cut executions are handed over. A bug (and
//    anything else) is run again by the explorer on its own session, which
//    then holds the execution for the report, the trace and the shrinker.
//  - The sessions share the file system: an execution (any session's) that
//    changes a file, waits on a descriptor or on a child turns speculation
//    off for good (the rule CheckpointedSearch applies to restores), and
//    speculation starts only after a first execution that did none of that.
//    An execution that overlapped such a change in another session is not
//    protected: see docs/ARCHITECTURE.md, "Parallel exploration".
//  - Each helper session lives in its own thread from launch to end: the
//    parent-death signal of its target is tied to the thread that forked it
//    and its tracees belong to that thread (Tracer::set_helper_thread). The
//    destructor stops the helpers (Tracer::kStopSignal) and joins them, so
//    their targets are gone when it returns.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "exploration/ParallelStats.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"
#include "Strategy.h"

namespace ctrl {

class ParallelExplorer {
 public:
  // Starts `helpers` helper sessions of `config`; each first runs `first`
  // and checks that it gives `first_result`'s events. `deadline`: the
  // exploration's time limit (max: none).
  ParallelExplorer(const SessionConfig& config, unsigned helpers, std::chrono::steady_clock::time_point deadline,
                   std::vector<shm::Signature> expected, ExecutionPlan first, ExecutionResult first_result);
  ~ParallelExplorer();
  ParallelExplorer(const ParallelExplorer&) = delete;
  ParallelExplorer& operator=(const ParallelExplorer&) = delete;

  // Executions that could make sessions see each other: a file changed, a
  // wait on a descriptor or on a child.
  static bool touches_outside(const ExecutionResult& r, bool files_changed);

  // The plans worth running ahead, most urgent first (replaces the list):
  // the explorer's next plan, then what the strategy predicts after it.
  void want(std::vector<ExecutionPlan> plans);
  // The result of a plan equal to `plan` that some session ran ahead, when
  // there is a usable one; waits for one still running, meanwhile running
  // other wanted plans with `run_own` (the explorer's session). nullopt:
  // the explorer runs `plan` itself.
  using RunOwn = std::function<ExecutionResult(const ExecutionPlan&)>;
  std::optional<ExecutionResult> take(const ExecutionPlan& plan, const RunOwn& run_own);
  // After an execution on the explorer's session (`files_changed`: its
  // region says so): turns speculation off when it touched the outside.
  void check_own(const ExecutionResult& r, bool files_changed);
  SpeculationStats stats() const;

 private:
  struct Entry {
    ExecutionPlan plan;
    bool done = false;
    bool wanted = true;  // still in the wanted list (else dropped when done)
    ExecutionResult result;
  };
  void helper(size_t k);
  // A wanted plan no session has taken, or nullptr (lock held).
  const ExecutionPlan* unclaimed() const;
  std::list<Entry>::iterator find(const ExecutionPlan& plan);
  // Stores the result of the running entry for `plan` (lock held).
  void finish(const ExecutionPlan& plan, ExecutionResult r, bool outside);
  void turn_off(const std::string& why);  // lock held

  SessionConfig config_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<shm::Signature> expected_;
  ExecutionPlan first_;
  ExecutionResult first_result_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<ExecutionPlan> wanted_;
  std::list<Entry> entries_;
  bool quit_ = false;
  SpeculationStats stats_;
  std::vector<std::thread> helpers_;
};

}  // namespace ctrl
