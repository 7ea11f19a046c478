// Sessions outside this process that take part in a partitioned
// exploration (PartitionedSampling.h, PartitionedDpor.h): the ranks of
// --mpi (RemoteRanks.h).
// The explorer begins them when it makes its partition and ends them before
// it drops it; meanwhile they claim ranges of plans (or, under DPOR, the
// tasks of remote slots) from the partition and deliver their results to
// it, so the explorer's counts, verdicts and bugs stay those of one session
// (of -j N under DPOR).
#pragma once

#include <vector>

#include "Strategy.h"
#include "exploration/ParallelStats.h"
#include "exploration/PartitionedDpor.h"
#include "exploration/PartitionedSampling.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"

namespace ctrl {

class RemoteWorkers {
 public:
  virtual ~RemoteWorkers() = default;
  // Sessions they run at most (the partition's window grows with them).
  virtual unsigned sessions() const = 0;
  // An exploration's partition exists: serve it. `config`: the explorer's
  // session's; each remote session must repeat `first` as `first_result`.
  virtual void begin(PartitionedSampling& partition, const SessionConfig& config,
                     const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                     const ExecutionResult& first_result) = 0;
  // The same for partitioned source-DPOR: each remote session is one of
  // `dpor`'s remote slots (PartitionedDpor::remote_next), 0..sessions()-1.
  virtual void begin_dpor(PartitionedDpor& dpor, const SessionConfig& config,
                          const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                          const ExecutionResult& first_result) = 0;
  // Stops them (their sessions end) and adds what they did to `stats`.
  // Called before the partition is dropped, also when begin never was.
  virtual void end(SpeculationStats& stats) = 0;
};

}  // namespace ctrl
