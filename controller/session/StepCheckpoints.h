// The stepping session's live checkpoints (LiveCheckpoints.h) along the
// paths it visits: going back restores the nearest one of the path and
// re-runs the rest. Automatic ones are taken on long moves, densest just
// before where the move ends; the user's are numbered for `restart`.
//
// Invariants:
//  - Off (--no-checkpoints): none is kept, nearest() finds none and every
//    move re-runs from the start; take_numbered() throws UsageError.
//  - The live checkpoints are made on first use: a session that never takes
//    one forks none.
//  - At most kMaxAutomatic automatic checkpoints are kept (the farthest
//    from the step where a new one is taken go first); the user's stay.
//  - The user's numbers are given in order (1, 2, ...) and never reused.
//  - Checkpoints keep their schedule only: a restore is given the path's
//    events (the session keeps them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "session/ExecutionResult.h"
#include "session/LiveCheckpoints.h"
#include "SharedRegion.h"
#include "Strategy.h"

namespace ctrl {

class Session;

struct CheckpointInfo {
  int id = 0;  // the user's number for restart (0: an automatic one)
  uint64_t step = 0;
  bool automatic = false;
};

class StepCheckpoints {
 public:
  static constexpr uint64_t kAutomaticFrom = 4096;  // no automatic checkpoint on shorter moves
  static constexpr uint64_t kBand = 16384;          // and one every kBand steps along the way
  static constexpr size_t kMaxAutomatic = 24;

  explicit StepCheckpoints(Session& session) : session_(session) {}

  bool enabled() const { return enabled_; }
  // Off drops every checkpoint.
  void set_enabled(bool enabled);
  // Whether any may be kept (on, and one was taken once): nearest() can
  // only find one then.
  bool any() const { return enabled_ && live_; }
  // Drops every checkpoint (their processes go).
  void clear() { live_.reset(); }

  // The checkpoint with the greatest step <= `step` taken on a schedule
  // that agrees with `schedule` up to its step; nullptr when none.
  const LiveCheckpoints::Checkpoint* nearest(const std::vector<uint32_t>& schedule, uint64_t step) const;
  // The steps between `from` and `target` where a long move leaves
  // automatic checkpoints: target - 2^k, and every kBand steps.
  static std::vector<uint64_t> stops_between(uint64_t from, uint64_t target);
  // An automatic checkpoint of the paused execution at `position` of
  // `path`, unless one of this path is at this step already (or they are
  // off). An agent's refusal is not an error: going back re-runs more.
  void take_automatic(const std::vector<uint32_t>& path, const std::vector<shm::Event>& events, uint64_t position);
  // The user's checkpoint of the paused execution at `position`; returns
  // its number. Throws UsageError when off or when the agent refuses.
  int take_numbered(const std::vector<shm::Event>& events, uint64_t position);
  // The user's checkpoint `number`; nullptr when there is none.
  const LiveCheckpoints::Checkpoint* numbered(int number) const;
  // Every checkpoint kept, by step.
  std::vector<CheckpointInfo> list() const;
  // As LiveCheckpoints::restore, with the path's `events`.
  ExecutionResult restore(const LiveCheckpoints::Checkpoint& c, ExecutionPlan plan, uint64_t index,
                          const shm::Event* events);

 private:
  LiveCheckpoints& live();

  Session& session_;
  std::unique_ptr<LiveCheckpoints> live_;
  bool enabled_ = true;
  // The user's checkpoints: their numbers and LiveCheckpoints ids.
  std::vector<std::pair<int, int>> numbered_;
};

}  // namespace ctrl
