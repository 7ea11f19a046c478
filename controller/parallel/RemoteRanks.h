// Rank 0's side of `ctrl attach --mpi`: the other ranks' sessions as
// RemoteWorkers of the partition (PartitionedSampling.h). Each other rank
// (RankWorker.h) coordinates `jobs` sessions of its own; this side hands
// out work items on demand and takes back results, on a thread of its own
// while an exploration runs.
//
// Work sharing between ranks: a rank that holds fewer plans than it has
// sessions asks for work (Want); it gets the oldest unclaimed range (one
// given back first, as the partition's claim does). When nothing can be
// claimed, the rank holding the most plans not yet started is asked to
// yield the newer half of them (Yield): they come back to the partition
// (Returned) and the asking rank claims them (a steal, counted for it).
//
// Partitioned source-DPOR (begin_dpor): each session of each other rank is
// a remote slot of rank 0's PartitionedDpor, a worker of its partition as a
// helper is. A rank is fed once it has said it has sessions (its first
// Want): each free slot of it gets the next task the partition has for that
// slot (the next plan of the work item bound to it, or of an item it steals
// from a busy worker's), one at a time, as a plan numbered like a seed's;
// its result goes back to the partition, which analyses it in the item's
// strategy (on this thread) and hands it to the explorer. The work stealing
// is the partition's (DporPartition.h): a slot of any rank steals the
// oldest open branch of any item, wherever the item's other plans ran.
//
// Invariants: every plan number handed to a rank is held for it (with the
// plan sent) until its result or its return arrives: the partition never
// waits for a plan nobody runs while the rank is alive (a dead rank ends the
// MPI job: --state keeps the frontier). Results are delivered to the
// partition as they arrive; it takes them in plan order. Under DPOR a slot
// has at most one task out, and a task returned unrun (the rank's sessions
// failed) is run by the explorer's session (PartitionedDpor::remote_lost),
// so no branch is lost. One thread calls MPI at a time (RankChannel.h).
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "parallel/RankChannel.h"
#include "parallel/RemoteWorkers.h"

namespace ctrl {

class RemoteRanks final : public RemoteWorkers {
 public:
  // What the other ranks need beside the session's settings to make the
  // same sessions: the sites made visible and the --fail-on-exit text.
  struct Sites {
    std::string sites = "all";  // Instrumentation's "all" or "atomics"
    std::vector<std::string> instrument;
    std::string fail_on_exit;
  };
  // `jobs`: sessions per rank (-j).
  RemoteRanks(RankChannel& channel, unsigned jobs);
  ~RemoteRanks() override;  // the other ranks end (Finish)
  void set_sites(Sites sites) { sites_ = std::move(sites); }

  unsigned sessions() const override { return unsigned(channel_.size() - 1) * jobs_; }
  void begin(PartitionedSampling& partition, const SessionConfig& config, const std::vector<shm::Signature>& expected,
             const ExecutionPlan& first, const ExecutionResult& first_result) override;
  void begin_dpor(PartitionedDpor& dpor, const SessionConfig& config, const std::vector<shm::Signature>& expected,
                  const ExecutionPlan& first, const ExecutionResult& first_result) override;
  void end(SpeculationStats& stats) override;

 private:
  struct Rank {
    std::map<uint64_t, ExecutionPlan> held;  // handed out, neither run nor given back
    bool hungry = false;                     // asked for work, not fed yet
    bool yielding = false;                   // asked to yield, not answered
    bool usable = true;
    uint64_t executions = 0, steals = 0;
    // DPOR: it has sessions (it asked for work), and per plan number out
    // the slot (0..jobs-1) and the task.
    bool started = false;
    std::map<uint64_t, std::pair<size_t, DporPartition::Task>> tasks;
    std::vector<bool> busy;  // per slot: a task out
  };
  void send_begin(const SessionConfig& config, const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                  const ExecutionResult& first_result);
  void serve();
  void feed_dpor();
  void dpor_result(int r, Rank& k, const RankChannel::Message& m);
  void dpor_returned(int r, Rank& k, const RankChannel::Message& m);
  void dpor_drop_all();  // every task out back to the explorer's session
  void handle(const RankChannel::Message& m);
  bool feed(int r);  // false: nothing could be claimed
  void steal_for(int r);
  void give_back(const std::vector<uint64_t>& numbers);

  RankChannel& channel_;
  unsigned jobs_;
  Sites sites_;
  PartitionedSampling* partition_ = nullptr;
  PartitionedDpor* dpor_ = nullptr;
  uint64_t next_number_ = 0;  // DPOR: the plan numbers handed out
  std::vector<Rank> ranks_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  bool begun_ = false;
};

}  // namespace ctrl
