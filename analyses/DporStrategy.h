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
  std::string name() const override { return "dpor"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& summary) override;
  bool exhaustive() const override { return exhausted_; }

  uint64_t races_found() const { return races_; }

 private:
  struct Sleeper {
    uint32_t thread;
    Access next;  // what the thread does when it runs from this state
  };
  struct Position {
    shm::Event event{};          // what ran here in the latest execution
    uint64_t enabled = 0;        // threads enabled in this state
    uint64_t backtrack = 0;      // threads to run here
    uint64_t done = 0;           // threads run here so far
    std::vector<Sleeper> sleep;  // sleep set of this state
    std::vector<Sleeper> tried;  // the step each done thread took here
  };
  using Clock = std::array<uint32_t, shm::kMaxThreads>;

  static uint64_t mask_of(const std::vector<Sleeper>& s);
  void analyse(const shm::Event* events, uint64_t n, uint64_t from);
  void add_backtrack(const shm::Event* events, uint64_t i, uint64_t j);
  bool happens_before(uint64_t a, uint64_t b) const;

  std::vector<Position> stack_;
  bool started_ = false;
  bool exhausted_ = false;
  uint64_t branch_ = 0;  // where the planned execution leaves the stack
  uint64_t races_ = 0;
  // Per event of the latest execution: its clock and its index in its thread.
  std::vector<Clock> clocks_;
  std::vector<uint32_t> seq_;
  std::vector<uint32_t> thread_;
};

}  // namespace ctrl
