// Partitioned DPOR under -j N (docs/ARCHITECTURE.md, "Partitioned
// exploration"): the source-DPOR search cut into work items
// (analyses/DporPartition.h), each explored by its own strategy on whichever
// session is free: N-1 helper sessions (HelperSession.h), each on a thread
// of its own that runs an item's plans and analyses their executions, and the
// explorer's session, which does the same while it waits for their results.
// The explorer takes every finished execution, any session's, in the order
// they finish, and accounts for it as with -j 1 (counts, bugs, race checks,
// traces). Under --mpi the other ranks' sessions are workers too (remote
// slots: remote_next and remote_completed, called by parallel/RemoteRanks.h;
// their executions are analysed here, on the caller's thread).
//
// Invariants:
//  - Every execution the search plans is handed to the explorer once, in
//    finishing order; the root item's first plan is the explorer's own first
//    execution (already accounted), run again by the partition and not
//    handed over.
//  - Only complete, blocked and cut executions of a helper are handed over
//    as they are; anything else (a bug) is run again on the explorer's
//    session, which then holds it for the report, the trace and the shrinker.
//  - The complete executions are one per Mazurkiewicz class whatever N
//    (DporPartition.h); the blocked ones, and which execution of a class
//    (which trace of a bug) comes first, may differ from -j 1.
//  - Probes (--strategy dpor+probes, ProbeSchedule.h): one schedule for
//    every session, asked whenever a session takes a search plan (the
//    explorer's first excepted): a probe due then runs first on that
//    session, which holds the search plan until it is done. So probes
//    alternate with the search's plans by the same counts as with -j 1 and
//    none runs after the search's last plan; a probe is no item's (it
//    teaches no search strategy, only the samplers, as every execution
//    does). How many run follows the search's executions in all, blocked
//    ones included, which may differ from -j 1's.
//  - A search plan held by a helper that stops before running it (the
//    helpers turned off) is run by the explorer's session, bound to its item.
//  - An execution that touches the outside (a file, a descriptor or child
//    wait) stops the helpers; the explorer's session explores the rest.
//  - Helper threads are stopped (Tracer::kStopSignal) and joined by the
//    destructor: their targets are gone when it returns.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "DporPartition.h"
#include "ProbeSchedule.h"
#include "exploration/ParallelStats.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"

namespace ctrl {

class PartitionedDpor {
 public:
  // Starts `helpers` helper sessions of `config`; each first runs `first`
  // and must repeat `first_result`. `make`: a fresh source-DPOR strategy
  // (its stop check set); `fixed`: the exploration's fixed prefix;
  // `probes`: the default strategy's probes as they stand after `first`
  // (null: none); `remote_sessions`: workers in other ranks (--mpi), which
  // take probes as helpers do.
  PartitionedDpor(const SessionConfig& config, unsigned helpers, std::chrono::steady_clock::time_point deadline,
                  std::vector<shm::Signature> expected, ExecutionPlan first, ExecutionResult first_result,
                  DporPartition::Factory make, std::vector<uint32_t> fixed,
                  std::unique_ptr<ProbeSchedule> probes = nullptr, unsigned remote_sessions = 0);
  ~PartitionedDpor();
  PartitionedDpor(const PartitionedDpor&) = delete;
  PartitionedDpor& operator=(const PartitionedDpor&) = delete;

  struct Finished {
    ExecutionPlan plan;
    ExecutionResult result;
  };
  // The next finished execution, running the explorer's share meanwhile with
  // `run_own`; nullopt when the search is over (exhausted()).
  using RunOwn = std::function<ExecutionResult(const ExecutionPlan&)>;
  std::optional<Finished> take(const RunOwn& run_own);
  // After an execution on the explorer's session: the helpers stop when it
  // touched the outside.
  void check_own(const ExecutionResult& r, bool files_changed);
  // The exploration ends (or shrinks a bug): the helpers run nothing more.
  void stop();
  bool exhausted() const { return partition_.done(); }
  // After stop(): nothing was left unexplored (the helpers are joined first,
  // so no execution is still running).
  bool explored();
  uint64_t fairness_cuts() const { return partition_.fairness_cuts(); }
  SpeculationStats stats() const;

  // Sessions outside this process (--mpi: parallel/RemoteRanks.h), each a
  // worker of the partition as a helper is (`remote_sessions` of them,
  // slots 0..remote_sessions-1; the end of PartitionedDpor.cpp). One caller at a
  // time per slot: it asks for a task, has it run, and gives the result
  // back before asking again, so a slot's item is analysed in order.
  // A task for `slot` to run; false when there is none now (Wait), the
  // search is over, stopped or turned off.
  bool remote_next(size_t slot, DporPartition::Task& task);
  // The result of `slot`'s task, accounted as a helper's; `outside`: it
  // touched the outside (the helpers and the remote sessions stop).
  void remote_completed(size_t slot, DporPartition::Task task, ExecutionResult result, bool outside);
  // `slot`'s task will never come back (its rank cannot run it): the
  // explorer's session runs it, then frees the slot's item.
  void remote_lost(size_t slot, DporPartition::Task task);
  // `slot` stops with no task out: its item is free for the others.
  void remote_release(size_t slot);

 private:
  struct Lost {
    size_t worker;
    DporPartition::Task task;
    bool probe = false;  // a probe's plan (no item's)
  };
  // Runs a lost remote task on the explorer's session (take()); nullopt
  // when it is not handed over (the root's first plan).
  std::optional<Finished> run_lost(Lost lost, const RunOwn& run_own);
  // What a session runs next: a search task, or a probe (task.plan, with no
  // item) before the search task it then holds.
  struct Job {
    DporPartition::Task task;
    bool probe = false;
  };
  DporPartition::Status next_job(size_t worker, Job& job);
  // After job's execution: the partition's and the probes' learning.
  void learn(size_t worker, const Job& job, const ExecutionSummary& summary);
  void helper(size_t k);
  void turn_off(const std::string& why);  // lock held

  SessionConfig config_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<shm::Signature> expected_;
  ExecutionPlan first_;
  ExecutionResult first_result_;
  DporPartition partition_;
  std::mutex probes_mutex_;
  std::unique_ptr<ProbeSchedule> probes_;                 // under probes_mutex_
  std::vector<std::optional<DporPartition::Task>> held_;  // per session, its own only
  // Per remote slot: whether the task out is a probe (at most one task per
  // slot is out; written and read by the remote ranks' thread only).
  std::vector<char> remote_probe_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Finished> ready_;  // helpers' executions not taken yet
  // Search tasks held by helpers that stopped: the explorer's to run.
  std::deque<DporPartition::Task> orphans_;
  std::deque<Lost> lost_;   // remote tasks for the explorer's session to run
  size_t remote_base_ = 0;  // the first remote slot's worker number
  bool quit_ = false;
  uint64_t dispatched_ = 1;  // execution indices for the sessions
  SpeculationStats stats_;
  // Per session (the explorer's first): seconds waiting for work, and when
  // it was ready and when it ended (max: still running).
  std::vector<double> idle_;
  std::vector<std::chrono::steady_clock::time_point> began_, ended_;
  std::vector<std::thread> helpers_;
};

}  // namespace ctrl
