// The live checkpoints of one session: paused executions kept as processes
// (agent/LiveCheckpoint.h), each at a step of the schedule it was taken on,
// that the session can continue from instead of re-running an execution
// from its start.
//
// Invariants:
//  - Every checkpoint listed holds a slot of the region's checkpoint table
//    whose process is parked before decision `step`; it stays until
//    drop() (or the session's end: it dies with the fork server).
//  - `schedule` and `events` are the decisions and events of steps
//    0..step-1 of the execution it was taken in: a restore writes the
//    events back into the region and starts the new plan with the schedule,
//    so what the controller reads of the restored execution is as if it
//    had run from the start.
//  - A restore never changes the checkpoint: restoring it twice continues
//    from the same state twice (files aside: see LiveCheckpoint.h).
#pragma once

#include <cstdint>
#include <vector>

#include "session/ExecutionResult.h"
#include "SharedRegion.h"
#include "Strategy.h"

namespace ctrl {

class Session;

class LiveCheckpoints {
 public:
  struct Checkpoint {
    int id = 0;
    int slot = -1;
    uint64_t step = 0;
    bool automatic = false;
    std::vector<uint32_t> schedule;  // decisions of steps 0..step-1
    std::vector<shm::Event> events;  // events of steps 0..step-1
  };

  // `keep_events` false: automatic checkpoints keep their schedule only, and the
  // caller gives the events back at restore (a stepping session keeps its
  // path's events anyway; a copy per checkpoint of a long path is large).
  explicit LiveCheckpoints(Session& session, bool keep_events = true) : session_(session), keep_events_(keep_events) {}
  ~LiveCheckpoints();
  LiveCheckpoints(const LiveCheckpoints&) = delete;
  LiveCheckpoints& operator=(const LiveCheckpoints&) = delete;

  // A checkpoint of the session's paused execution, whose events so far
  // are `events`; it stays paused. Throws UsageError with the agent's
  // reason when it cannot be taken (threads ctrl does not control, every
  // slot taken).
  const Checkpoint& take(const std::vector<shm::Event>& events, bool automatic = false);
  // The same from the first `n` of `events`.
  const Checkpoint& take(const shm::Event* events, uint64_t n, bool automatic = false);
  // The checkpoint the execution that just ran took at its plan's
  // checkpoint_at (ExecutionPlan), from its events; nullptr when it took
  // none (it ended before, or the agent refused).
  const Checkpoint* adopt(const std::vector<shm::Event>& events, uint64_t step);
  const Checkpoint* find(int id) const;
  // The checkpoint with the greatest step <= `step` taken on a schedule
  // that agrees with `schedule` up to its step; nullptr when none.
  const Checkpoint* nearest(const std::vector<uint32_t>& schedule, uint64_t step) const;
  // Abandons the session's paused execution and continues from checkpoint
  // `id` with `plan`, whose first `step` decisions are set to the
  // checkpoint's schedule. As Session::run: to a pause or to the end.
  ExecutionResult restore(int id, ExecutionPlan plan, uint64_t index, const std::vector<shm::Signature>& expected = {});
  // Without kept events: `events` holds at least the checkpoint's step.
  ExecutionResult restore(int id, ExecutionPlan plan, uint64_t index, const std::vector<shm::Signature>& expected,
                          const shm::Event* events);
  void drop(int id);
  const std::vector<Checkpoint>& all() const { return checkpoints_; }

 private:
  Checkpoint& add(int slot, const shm::Event* events, uint64_t n, uint64_t step, bool automatic);

  Session& session_;
  std::vector<Checkpoint> checkpoints_;
  int next_id_ = 1;
  bool keep_events_ = true;
};

}  // namespace ctrl
