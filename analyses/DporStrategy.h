// Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, POPL'14),
// run statelessly: every execution restarts from the checkpoint and replays
// a prefix of decisions, then the agent continues on its own (sticky policy,
// honouring the sleep set it was given).
//
// After each execution the strategy computes happens-before with vector
// clocks over the logged events (program order, creation -> start, and every
// pair of conflicting events in execution order; Dependence.h), finds the
// reversible races e_i < e_j (conflicting, different threads, no event
// hb-between them) and, for each, makes sure one of the initials of
// notdep(e_i).e_j is in the backtrack set of the state before e_i. The next
// execution branches at the deepest state with a backtrack thread that was
// neither tried there nor asleep.
//
// Invariants: the stack holds one Position per step of the latest execution;
// positions below the branch point are shared with every later execution;
// complete executions are pairwise non-equivalent (sleep sets), and every
// class is reached (source sets), so the count of complete executions is the
// number of Mazurkiewicz classes.
#pragma once

#include <array>
#include <vector>

#include "Dependence.h"
#include "Strategy.h"

namespace ctrl {

class DporStrategy final : public Strategy {
 public:
  // `optimal`: Optimal-DPOR (wakeup trees instead of backtrack sets): never
  // starts a redundant execution, so no execution ends blocked.
  explicit DporStrategy(bool optimal = false) : optimal_(optimal) {}
  std::string name() const override { return optimal_ ? "dpor-optimal" : "dpor"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& summary) override;
  bool exhaustive() const override { return exhausted_; }

  uint64_t races_found() const { return races_; }

 private:
  struct Sleeper {
    uint32_t thread;
    Access next;  // what the thread does when it runs from this state
  };
  // A wakeup tree: sequences of steps still to run from a state, as a tree
  // (children in the order they will run).
  struct Node {
    uint32_t thread = 0;
    Access access;
    std::vector<Node> children;
  };
  struct Position {
    shm::Event event{};          // what ran here in the latest execution
    uint64_t enabled = 0;        // threads enabled in this state
    uint64_t backtrack = 0;      // threads to run here
    uint64_t done = 0;           // threads run here so far
    std::vector<Sleeper> sleep;  // sleep set of this state
    std::vector<Sleeper> tried;  // the step each done thread took here
    // Optimal mode: what is left to run from here, and whether this step
    // was dictated by a wakeup tree whose branch goes on below it.
    Node wakeup;
    bool forced = false;
  };
  using Clock = std::array<uint32_t, shm::kMaxThreads>;

  static uint64_t mask_of(const std::vector<Sleeper>& s);
  static void add_sleepers(ExecutionPlan& plan, const Position& pos, uint32_t chosen);
  void analyse(const shm::Event* events, uint64_t n, uint64_t from);
  void add_backtrack(const shm::Event* events, uint64_t i, uint64_t j);
  // Optimal mode: the race e_i < e_j as a sequence to insert into wakeup trees.
  void insert_race(const shm::Event* events, uint64_t i, uint64_t j);
  bool weak_initial(const shm::Event* events, uint32_t thread, const Access& step,
                    const std::vector<uint64_t>& v) const;
  // Happens-before among the events of v alone (paths through events left
  // out of v do not count): for each position, the positions before it.
  std::vector<std::vector<bool>> order_within(const shm::Event* events, const std::vector<uint64_t>& v) const;
  uint64_t initials_of(const shm::Event* events, const std::vector<uint64_t>& v) const;
  void remove_first(std::vector<uint64_t>& v, uint32_t thread) const;
  bool happens_before(uint64_t a, uint64_t b) const;

  bool optimal_;
  Node chosen_;  // optimal mode: the branch the planned execution follows
  std::vector<Position> stack_;
  bool started_ = false;
  bool exhausted_ = false;
  uint64_t branch_ = 0;  // where the planned execution leaves the stack
  uint64_t races_ = 0;
  // Per event of the latest execution: its clock and its index in its thread.
  std::vector<Clock> clocks_;
  std::vector<uint32_t> seq_;
  std::vector<uint32_t> thread_;
  // Per event: its thread's latest sfence before it (-1: none).
  std::vector<int64_t> sfence_before_;
  // The thread whose buffer each flush actor is (learnt from its flushes;
  // actors are numbered in order of first use, so stable along a prefix).
  std::array<uint32_t, shm::kMaxThreads> owner_{};
};

}  // namespace ctrl
