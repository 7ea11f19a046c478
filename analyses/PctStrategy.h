// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, ASPLOS 2010). Every execution gets random distinct thread
// priorities and d-1 priority-change points drawn uniformly and distinct
// over the execution's estimated length; the agent then always runs the
// enabled thread of highest priority, and at the i-th change point drops the
// thread about to run to priority i, below every initial priority
// (TailChooser.h's PctChooser).
//
// What a change point counts (Points):
//  * Steps, the paper's: every step. A bug of depth d (d ordering
//    constraints between steps) among n threads in k steps is found by each
//    execution with probability at least 1/(n k^(d-1)).
//  * Writes: only the write steps (pct_write_step) taken where another
//    thread could run; a bug of depth d whose d-1 preemptions each come
//    just before a write (a lost update, an atomicity violation: read,
//    preempted, write) is found with probability at least 1/(n w^(d-1)),
//    w the write steps of an execution; a bug that needs a thread preempted
//    just before a read gets no bound. These executions also use the
//    weaker yield rule (FairYields.h, `progress`): a thread that spins on
//    a yield polls between the steps of the threads that make progress.
//  * Both (the default): even executions Steps, odd ones Writes; each
//    bound holds for half of the executions.
// With yields, the fair rule is part of the scheduler: a bug's depth is
// counted among the schedules that rule lets run, and the rule decides
// which of two bugs is the shallower (docs/PERFORMANCE.md, issue 13).
// The write steps are few where most steps are reads and polls (a
// work-stealing deque with spinning thieves: 474 steps, 33 write steps).
//
// k and w are estimated as the paper does, from the executions seen: the
// most any earlier execution took (kDefaultSteps before the first). Plans
// depend on (--seed, execution index) and those estimates only, so an
// execution re-runs alone given the same estimates, and its trace replays.
// With a fixed prefix (the debugger's explore) the change points fall after
// it. Never exhaustive.
#pragma once

#include <atomic>

#include "Strategy.h"

namespace ctrl {

class PctStrategy final : public Strategy {
 public:
  // The length assumed before any execution finished.
  static constexpr uint64_t kDefaultSteps = 1000;
  enum class Points { Steps, Writes, Both };

  // 1 <= depth <= shm::kMaxPctDepth (else std::invalid_argument).
  PctStrategy(uint64_t seed, uint32_t depth, Points points = Points::Both);
  std::string name() const override { return "pct"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  // Safe from any thread while another calls next() and completed()
  // (PartitionedSampling.h draws plans without a lock): see steps_.
  std::optional<ExecutionPlan> plan_at(uint64_t n) const override { return plan(n); }
  // The length estimates (steps, writes, whether one execution was seen).
  std::vector<uint64_t> saved_state() const override {
    return {estimated_steps(), estimated_writes(), uint64_t(seen_)};
  }
  bool restore_state(uint64_t next, const std::vector<uint64_t>& state) override {
    if (state.size() != 3) return false;
    index_ = next;
    steps_.store(state[0], std::memory_order_relaxed);
    writes_.store(state[1], std::memory_order_relaxed);
    seen_ = state[2] != 0;
    return true;
  }

  uint32_t depth() const { return depth_; }
  // What execution `index`'s change points count.
  bool counts_writes(uint64_t index) const;
  // The range the next plans' change points are drawn over.
  uint64_t estimated_steps() const { return steps_.load(std::memory_order_relaxed); }
  uint64_t estimated_writes() const { return writes_.load(std::memory_order_relaxed); }

 private:
  uint64_t seed_;
  uint32_t depth_;
  Points points_;
  uint64_t index_ = 0;
  // Written by completed() only; read by plan_at from the sessions' threads
  // too (PartitionedSampling.h) without a lock: a plan drawn while they
  // change may use one new and one old estimate, which only makes it differ
  // from the one next() gives in its turn (it is then run again).
  std::atomic<uint64_t> steps_ = kDefaultSteps;
  std::atomic<uint64_t> writes_ = kDefaultSteps;
  bool seen_ = false;  // an execution finished: steps_ and writes_ are the most seen
  ExecutionPlan plan(uint64_t index) const;
};

}  // namespace ctrl
