// Checkpointed search: each execution a strategy plans starts from the
// deepest live checkpoint (LiveCheckpoints.h) on its path instead of from
// the first pthread_create, when that skips enough steps to pay for the
// restore, and an execution that branches deep enough leaves a checkpoint at
// its branch point for the plans that follow it.
//
// Invariants (what makes the executions identical to fresh ones):
//  - A plan starts from checkpoint C only when C's schedule is the plan's
//    prefix up to C's step, C's step is at or before the plan's sleep set
//    starts (a restore starts the sleep set empty: agent Runtime::
//    take_checkpoint), and the plan's tail policy is deterministic from the
//    state (Sticky or RoundRobin: a restore restarts the random generator
//    from the seed, so Random plans always run from the start).
//  - C was taken after the latest execution started from the start: such an
//    execution undoes the file journal and moves its mark, which a restore
//    of an older checkpoint reports as files changed.
//  - No checkpoint is used once any execution changed a file (Header::
//    files_changed: a restore does not undo changes made after the
//    checkpoint), waited on a descriptor (FdWait: a socket or a pipe with an
//    end outside the process is not put back) or on a child process
//    (ChildWait: the children belong to the process that forked them): from
//    then on every execution runs from the start and every checkpoint is
//    dropped.
//  - At most `max_kept` checkpoints live; one whose schedule disagrees with
//    a plan before its step is dropped (depth-first strategies never come
//    back below a branch they left).
#pragma once

#include <cstdint>
#include <vector>

#include "session/ExecutionResult.h"
#include "session/LiveCheckpoints.h"
#include "SharedRegion.h"
#include "Strategy.h"

namespace ctrl {

class Session;

struct CheckpointedSearchStats {
  uint64_t restored = 0;     // executions continued from a checkpoint
  uint64_t steps_saved = 0;  // steps they did not re-run
  uint64_t taken = 0;        // checkpoints taken
  bool disabled = false;     // a file, descriptor or child wait turned them off
  uint64_t diverged = 0;     // restored executions that left their plan (then run from the start)
};

class CheckpointedSearch {
 public:
  // Steps a restore must skip to be used (docs/PERFORMANCE.md, "Checkpointed
  // search": a restore costs as much as re-running a few hundred steps).
  static constexpr uint64_t kMinStepsSaved = 1000;
  static constexpr size_t kMaxKept = 16;

  explicit CheckpointedSearch(Session& session, uint64_t min_steps_saved = kMinStepsSaved, size_t max_kept = kMaxKept);
  CheckpointedSearch(const CheckpointedSearch&) = delete;
  CheckpointedSearch& operator=(const CheckpointedSearch&) = delete;

  // Runs `plan` as execution `index` (as Session::run), from the deepest
  // usable checkpoint or from the start.
  ExecutionResult run(ExecutionPlan plan, uint64_t index, const std::vector<shm::Signature>& expected);
  // Executions this object did not run started from the start (shrinking):
  // every checkpoint is dropped.
  void forget();
  const CheckpointedSearchStats& stats() const { return stats_; }

 private:
  // The deepest checkpoint `plan` may start from, nullptr when none pays.
  const LiveCheckpoints::Checkpoint* usable(const ExecutionPlan& plan) const;
  // Drops the checkpoints `plan` shows no later plan can use.
  void drop_unusable(const ExecutionPlan& plan);
  void drop_all();
  // Where `plan`, which starts at step `base` and branches at `branch`,
  // takes its checkpoint: at the branch, or earlier where a long forced
  // stretch of the previous execution ends.
  uint64_t placement(const ExecutionPlan& plan, uint64_t base, uint64_t branch) const;
  // After an execution: turns checkpoints off when it did what a restore
  // cannot put back.
  void check_restorable(const ExecutionResult& r);

  Session& session_;
  LiveCheckpoints checkpoints_;
  uint64_t min_steps_saved_;
  size_t max_kept_;
  bool enabled_ = true;
  CheckpointedSearchStats stats_;
  // The previous execution's decisions and enabled sets, step by step.
  struct Step {
    uint32_t thread;
    uint64_t enabled;
  };
  std::vector<Step> last_;
};

}  // namespace ctrl
