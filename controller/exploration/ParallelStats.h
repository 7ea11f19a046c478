// What -j N did (ExplorationReport::speculation, the report's "parallel"
// section): never part of what an exploration found, which is the same for
// any N.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ctrl {

struct SpeculationStats {
  unsigned jobs = 1;  // sessions, the explorer's included
  // How the sessions shared the work: "seed-ranges" (PartitionedSampling.h:
  // each session runs ranges of execution seeds) or "dpor-partition"
  // (PartitionedDpor.h: each session explores work items, and runs the
  // default strategy's probes); empty: the explorer's session alone (`off`
  // says why).
  std::string mode;
  uint64_t speculative = 0;  // executions run ahead of their turn (any session)
  uint64_t taken = 0;        // of those, results the explorer used
  std::string off;           // why parallel running stopped early, or empty
  // seed-ranges: work items handed out, results run again because the
  // strategy's plan for their index changed before their turn (pct's
  // length estimate grew), and per session (the explorer's first) the
  // executions it ran and the fraction of its time it waited for work.
  uint64_t ranges = 0;
  uint64_t replanned = 0;
  // dpor-partition (PartitionedDpor.h): work items taken from a busy
  // session's search (`ranges` counts every item, the first included).
  uint64_t steals = 0;
  struct Worker {
    uint64_t executions = 0;
    double idle_fraction = 0;
  };
  std::vector<Worker> workers;
  // --mpi (parallel/RemoteRanks.h): per rank, rank 0 first, its sessions,
  // the executions they ran, their mean idle fraction, the steals it made
  // (another rank asked to yield for it) and the plans it yielded.
  struct Rank {
    unsigned sessions = 0;
    uint64_t executions = 0;
    double idle_fraction = 0;
    uint64_t steals = 0;
    uint64_t yielded = 0;
  };
  std::vector<Rank> ranks;
};

}  // namespace ctrl
