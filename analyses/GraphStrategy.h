// Exploration of C11/RC11 executions as execution graphs (--model c11|rc11,
// issue 11), after TruSt (Kokologiannakis, Marmanis, Gladstein, Vafeiadis,
// "Truly stateless, optimal dynamic partial order reduction", POPL 2022)
// for the choices, and CDSChecker's promises for load buffering under c11.
//
// An execution is a graph: per thread its atomic events in program order,
// for each read the store it reads from (rf), per location the modification
// order (mo) of its stores. The agent runs a plan: a prefix of decisions
// (thread, shm::Choice) that rebuilds a graph event by event, then the
// deterministic sticky tail, in which every read reads the mo-last store and
// every store becomes mo-last. From each finished execution the strategy
// derives, for the events the tail added:
//  * forward alternatives: a read reads another store already in the graph,
//    a store is placed earlier in mo (each kept if the graph stays consistent);
//  * backward revisits: a store w lets an earlier read r of its location read
//    it, keeping only the events added before r and w's (po ∪ rf)-prefix
//    (the new plan replays them, then r reading w); under c11 a read in w's
//    prefix may read it too, through a promise of w's value;
//  * a revisit is made only from the graph whose deleted events were each
//    added maximally (TruSt's condition), so each graph is built once.
// Each plan is a stack entry; complete graphs are hashed, so a graph seen
// twice is counted as redundant rather than reported twice.
//
// Invariants: completed() is shown the execution of the plan next() returned
// last; an execution whose graph is not consistent (a promise not kept, an
// axiom broken) is infeasible: last_feasible() is false and its outcome is
// not a bug.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ModelAnalysis.h"
#include "SharedRegion.h"
#include "Strategy.h"

namespace ctrl {

class GraphExplorer;

class GraphStrategy final : public Strategy {
 public:
  // `model`: a model explored as graphs (ModelAnalysis.h; c11, rc11).
  explicit GraphStrategy(const ModelAnalysis& model);
  explicit GraphStrategy(shm::MemoryModel model) : GraphStrategy(model_analysis(model)) {}
  ~GraphStrategy() override;

  std::string name() const override { return "dpor"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  bool exhaustive() const override;
  bool last_feasible() const override;
  std::optional<ModelCounts> model_counts() const override;
  std::vector<ModelBug> last_model_bugs() const override;

 private:
  std::unique_ptr<GraphExplorer> explorer_;
};

}  // namespace ctrl
