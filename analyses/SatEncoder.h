// The SAT question of --strategy sat (SatStrategy.h), after SATCheck's
// encoding (Demsky, Lam, OOPSLA 2015, section 4) on the merged graph of
// SatEventGraph.h: is there one sequentially consistent execution, made of
// the histories seen so far, in which some thread reads at some node a
// value it never read there (a goal)?
//
// Variables: x(n) node n runs; c(n,v) read node n reads v (one per edge);
// new(n) it reads a value never seen there (the goal, its thread stops
// there; a node only seen parked, never run, is a goal if it runs); r(n,s) n reads from writer s (or the initial
// value); o(a,b) a runs before b, for nodes of different thread instances (nodes of one instance are ordered by their
// trie). Constraints: a node runs only after its parent and the edge it hangs on; a thread instance only after its
// create node, a join only after an exit of the joined instance and after
// all its nodes; a read reads from exactly one writer that ran before it,
// with no writer of its location between them, and the value it gets
// chooses its edge (a value not among its edges: new); a lock reads a free
// mutex; nothing runs after a process exit; a read that would repeat an
// earlier read of its thread with nothing written since does not run (the
// agent holds such a spinning thread back).
//
// Transitivity: between two thread instances it is encoded eagerly with
// binary clauses between neighbours (a before b implies a before b's
// children), which for two chains is all of it, quadratic; cycles through
// three or more instances are lazy: a model's order is checked for a cycle
// among the nodes it runs, and a clause forbidding that cycle is added (and
// kept by the caller for later encodings: it holds in every execution), so
// long traces do not get the cubic clause set.
//
// Invariants: a Sat answer's order is a linear extension of the model's
// order on the nodes it runs, each read's key is the value the model says it
// reads, and exactly its first goal node, if any, has goal set.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "SatEventGraph.h"
#include "SatSolver.h"

namespace ctrl {

struct SatStep {
  uint32_t node = kSatNone;
  uint64_t key = 0;   // the value it reads (meaningless for a goal)
  bool goal = false;  // reads a value never seen at its node
};

struct SatAnswer {
  SatSolver::Result result = SatSolver::Result::Unsat;
  std::vector<SatStep> order;  // Sat: the nodes that run, up to the first goal node
  uint64_t vars = 0, clauses = 0;
  uint32_t refinements = 0;   // cycles forbidden before the order was acyclic
  uint64_t goals = 0;         // read nodes that could read something new (goal variables)
  double encode_seconds = 0;  // building the formula (the rest of a round is the solver's)
};

// A cycle a0 < a1 < ... < a0 that no execution has: its pairs.
using SatCycle = std::vector<std::pair<uint32_t, uint32_t>>;

class SatEncoder {
 public:
  // `cycles`: forbidden cycles from earlier encodings; new ones are added.
  SatEncoder(const SatEventGraph& graph, SatSolver& solver, std::vector<SatCycle>& cycles);
  SatAnswer solve(const std::function<bool()>& stop);

 private:
  static constexpr int kTrue = INT32_MAX;
  static constexpr int kFalse = -INT32_MAX;
  int x(uint32_t n) const;
  int order(uint32_t a, uint32_t b);  // kTrue/kFalse within a thread; 0: never both run
  void clause(std::vector<int> lits);
  // False when `stop` said so before the formula was complete.
  bool encode(const std::function<bool()>& stop);
  void encode_read(uint32_t n);
  // The agent's spin rule (agent/ExecutionModel.h): a thread about to repeat
  // a read it made since its last write in the same register and stack
  // state, when nothing it read since has been written, is not enabled. A
  // node the agent showed to be such a repeat (SatNode::spins) runs only
  // after some write to a location its thread read since that read.
  // A store the thread made in such a window is no progress (the agent's
  // kUnchanged) when it wrote what memory held: the literal "store w runs and
  // overwrites its own value" (forced true when it does; memoised).
  void encode_spin(uint32_t n);
  int unchanged(uint32_t w);
  // The literal "writer s writes (some value)", and each value it may write
  // with its literal.
  int writes_lit(uint32_t s) const;
  std::vector<std::pair<uint64_t, int>> written_values(uint32_t s) const;

  const SatEventGraph& g_;
  SatSolver& solver_;
  std::vector<SatCycle>& cycles_;
  std::vector<int> x_, new_;
  // Per node, the literal of its goal (0: none): reading a new value, or
  // running at all for a node only seen parked (no edge yet).
  std::vector<int> goal_;
  std::vector<std::vector<int>> c_;  // per node, per edge
  std::map<std::pair<uint32_t, uint32_t>, int> o_;
  std::map<uint32_t, int> unchanged_;
  const std::function<bool()>* stop_ = nullptr;  // encode()'s, polled inside long loops
  bool stopped_ = false;
  std::vector<int> goals_;
};

}  // namespace ctrl
