// SAT-directed search (--strategy sat, issue 24), after SATCheck (Demsky,
// Lam, "SATCheck: SAT-directed stateless model checking for SC and TSO",
// OOPSLA 2015): behaviours, not interleavings. Every execution is merged
// into the event graph of SatEventGraph.h; SatEncoder.h asks the solver for
// one execution made of what was seen in which some read gets a value never
// seen at its place in its thread's history (a goal); the answer is run,
// and what it shows merged. When no such execution exists (unsat) every
// history of every thread has been run: behaviour-complete.
//
// On a binary, without the compiler's provenance, the dependence is the
// coarse one: whatever a thread does after a load may depend on every value
// it loaded before, so a goal is any new value at any read, where SATCheck
// has one per branch direction or function input (SatEventGraph.h).
//
// The schedule: the model's order of the nodes it runs, up to and including
// its first goal node, replayed in a controller-side machine (memory per
// location, mutex holders, thread indices as the agent gives them; under
// tso a FIFO store buffer per thread, whose flush nodes become steps of the
// thread's flush actor, shm::kFlushActorBase + t) that turns nodes into
// thread choices; the execution's prefix is those choices,
// cut at the first step where the machine disagrees with the model (a
// deviation: counted; it should not happen), then the sticky tail. This is
// the wait-pair schedule of SATCheck with its pairs dropped at the first
// deviation.
//
// What it does not see: a bug that is no thread's history but a global
// state (a deadlock of threads whose histories all ran, each in another
// execution) is found only if an execution meets it; see
// docs/ARCHITECTURE.md, "SAT-directed search".
//
// Invariants: completed() is shown the execution of the plan next() returned
// last; once the graph cannot follow the program (why()), next() returns
// nothing and the search is not exhaustive.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "SatEncoder.h"
#include "SatEventGraph.h"
#include "Strategy.h"

namespace ctrl {

class SatStrategy final : public Strategy {
 public:
  // store_buffers: under --model tso (SatTsoEncoding.h): flushes are nodes
  // and the schedule drives the flush actors.
  explicit SatStrategy(bool store_buffers = false) : graph_(store_buffers) {}
  std::string name() const override { return "sat"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  bool exhaustive() const override { return complete_; }
  const SolverStats* solver_stats() const override { return &stats_; }
  const SatEventGraph& graph() const { return graph_; }

 private:
  // The thread choices that run `order`, cut at the first deviation.
  std::vector<uint32_t> schedule(const std::vector<SatStep>& order);
  void fail(const std::string& why);
  void count_goals();

  SatEventGraph graph_;
  // One solver for the whole search: each round adds what the graph gained
  // (SatEncoder.h), so what the solver learnt survives.
  std::unique_ptr<SatSolver> solver_ = make_cadical_solver();
  SatEncoder encoder_{graph_, *solver_};
  SolverStats stats_;
  bool started_ = false, complete_ = false, stopped_ = false;
  uint64_t size_before_ = 0;
};

}  // namespace ctrl
