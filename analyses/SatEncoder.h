// The SAT question of --strategy sat (SatStrategy.h), after SATCheck's
// encoding (Demsky, Lam, OOPSLA 2015, section 4) on the merged graph of
// SatEventGraph.h: is there one sequentially consistent execution, made of
// the histories seen so far, in which some thread reads at some node a
// value it never read there (a goal)? (tso: under --model tso, one x86-TSO
// execution: reads-from, flushes and drains as SatTsoEncoding.h says.)
//
// One encoder, and one incremental solver, for the whole search: each
// round adds only what the graph gained since the last, so what the solver
// learnt about the program (a lock's mutual exclusion, an owner that cannot
// be read under the lock) survives from round to round.
//
// Variables, each meaning one fixed fact about an execution of the program
// whatever the graph later learns: x(n) node n runs; val(n,v) read node n
// reads value v (one per value it could read: what its location's writers
// write and the initial value); src(n,s) n reads from writer s (or the
// initial value); o(a,b) a runs before b, for nodes of different thread
// instances (nodes of one instance are ordered by their trie).
// Constraints: a node runs only after its parent and the value its parent
// read to reach it; a thread instance only after its create node, a join
// only after an exit of the joined instance and after all its nodes; a read
// reads from at least one writer that ran before it, with no writer of its
// location between them, and gets the value that writer wrote (at most one
// value); a lock reads a free mutex; nothing runs after a process exit; a
// read that would repeat an earlier read of its thread with nothing written
// since does not run (the agent holds such a spinning thread back); a read
// never reads one of its spin keys. A goal is val(n,v) for a value v never
// read at n, src(n, initial) while the initial value is unknown, or x(n)
// for a node only seen parked.
//
// Incrementality. Every clause added holds in every execution of the
// program, for every later graph (the variables' meanings never change),
// so clauses are only ever added (each at most once). What does change as
// the graph grows is (1) which goals are open and (2) disjunctions that
// list what the graph knows: a read's possible writers, a join's exits, a
// spinner's possible wakers, the sources of the value a store overwrites
// (unchanged()). A growing disjunction is a chain "head or
// t1", "not t1, or what was added since, or t2", ... whose open end t_k a
// round forces false; (1) and (2) are the round's part, under one
// activation literal that is assumed for that round only and then retired.
// So every learnt clause stays valid (a chain literal t_i means "one of
// what was added after i" forever). A merge of histories (SatEventGraph.h)
// can put older nodes of a thread before the node merged into: the reads
// and overwriting stores below it are then encoded again over every writer,
// which adds the clauses their new same-thread writers need, and every
// writer below it is fresh again for the reads and stores of its location
// in other threads (a pair of its thread's writers now ordered needs its
// "not in between" clause; only ever adding, as above).
//
// A writer that reads a new value (a goal) writes something unknown; a
// read may take its value from it, unconstrained. That is harmless: such a
// read runs after a goal, and a schedule stops at the model's first goal,
// before which every read got the value its writer really wrote (by
// induction along the order), so the first goal is real and an unsat
// answer means none is reachable.
//
// Transitivity: between two thread instances it is encoded eagerly with
// binary clauses between neighbours (a before b implies a before b's
// children), which for two chains is all of it, quadratic; cycles through
// three or more instances are lazy: a model's order is checked for cycles
// among the nodes it runs, clauses forbidding up to 64 of them are added
// (each holds in every execution) and the solver asked again, so long
// traces do not get the cubic clause set. CTRL_SAT_LAZY_ORDER=1 leaves the
// two-instance clauses to that refinement too (an experiment: fewer
// clauses, more solver calls, no clear gain on Dekker yet). Under tso the
// flush windows (SatTsoEncoding::encode_windows) bring the cycles through a
// thread and its own flush instance back to two instances, eagerly.
//
// "No writer in between" under sc is lazy as well (CTRL_SAT_EAGER_BETWEEN=1
// makes it eager): R reads among W writers of a location would need R x W x W
// clauses, most never relevant. A model's linear order is checked up to its
// first goal: a read whose source has another writer of the location
// between them gets that one clause, and the solver is asked again. The
// clauses are the eager ones, so a Sat answer's prefix is a real execution
// and an Unsat answer (of a formula with fewer clauses) holds for all.
//
// Exclusion lemmas. The proof that a lock excludes is an induction over
// its critical sections (a compare-exchange inside another thread's section
// must have read a release made inside it, whose own acquisition then was
// inside it too, or contains it), which CDCL finds poorly when asked for
// every goal at once: the spinlock's final unsat round took most of its
// time. So a round whose one call runs past a conflict budget (and every
// later round) first proves, shallowest first, for each memory-changing
// read-modify-write a, its thread's next write r of the location and each
// other thread's memory-changing read-modify-write b of it: b is not
// between a and r, and b after a means r ran (a thread stopped at a goal
// never ends its section). Each is a cheap call under assumptions once the
// shallower ones are clauses. A lemma is a clause of the permanent formula
// with the open ends of the growing disjunctions its proof used (the
// solver's failed assumptions) added, so it holds for every later graph; a
// candidate that is not a lemma costs one budgeted call and is not tried
// again. Then each goal is solved alone; a refuted goal is skipped while
// the open ends its refutation used stay open. Without any lemma (no such
// section) the round is the one call again, unlimited. Only speed, and
// which goal a round reaches first, depend on this: each lemma is implied
// by the formula.
//
// Invariants: a Sat answer's order is a linear extension of the model's
// order on the nodes it runs, each read's key is the value the model says it
// reads, and exactly its first goal node, if any, has goal set; the graph
// passed to the constructor only grows between solve() calls (node ids
// stable, SatEventGraph.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "SatEventGraph.h"
#include "SatSolver.h"
#include "SatTransitivity.h"
#include "SatTsoEncoding.h"  // tso:

namespace ctrl {

struct SatStep {
  uint32_t node = kSatNone;
  uint64_t key = 0;   // the value it reads (meaningless for a goal)
  bool goal = false;  // reads a value never seen at its node
};

struct SatAnswer {
  SatSolver::Result result = SatSolver::Result::Unsat;
  std::vector<SatStep> order;      // Sat: the nodes that run, up to the first goal node
  uint64_t vars = 0, clauses = 0;  // the whole formula in the solver
  uint64_t added = 0;              // clauses this round added (the graph's growth, the round's part)
  uint32_t refinements = 0;        // cycles forbidden before the order was acyclic
  uint32_t between_added = 0;      // lazy "no writer in between" clauses a model broke
  uint32_t lemmas = 0;             // exclusion lemmas proven this round
  uint64_t goals = 0;              // nodes that could read something new (or run for the first time)
  double encode_seconds = 0;       // extending the formula (the rest of a round is the solver's)
};

class SatEncoder {
 public:
  SatEncoder(const SatEventGraph& graph, SatSolver& solver);
  // One round on the graph as it is now.
  SatAnswer solve(const std::function<bool()>& stop);
  // Whether the formula has an order variable for nodes a and b of
  // different instances (SatTransitivity.h: only pairs some clause orders,
  // and the chains between them).
  bool has_order(uint32_t a, uint32_t b) const {
    auto key = std::minmax(a, b);
    return o_.count(uint64_t(key.first) << 32 | key.second) != 0;
  }

 private:
  friend class SatTsoEncoding;  // tso: the TSO reads-from and drain clauses use the helpers below
  friend class SatTransitivity;  // reads o_, makes rows with order() and clause()
  static constexpr int kTrue = INT32_MAX;
  static constexpr int kFalse = -INT32_MAX;
  int x(uint32_t n);
  int val(uint32_t n, uint64_t v);
  int src(uint32_t n, uint32_t s);    // s == kSatNone: the initial value
  int order(uint32_t a, uint32_t b);  // kTrue/kFalse within a thread; 0: never both run
  // Adds the clause unless it was added before (or is true).
  void clause(std::vector<int> lits);
  // The disjunction named `key` (kind, node) is now `lits`, a superset of
  // what it was: extends its chain; the round forces its open end false.
  void grow(std::pair<int, uint32_t> key, const std::vector<int>& lits);
  // False when `stop` said so before the formula was complete.
  bool encode(const std::function<bool()>& stop);
  // False when `stop` said so (polled per writer: a read among thousands of
  // writers makes millions of clauses); the read is then not marked covered,
  // so a later round makes what is missing.
  bool encode_read(uint32_t n, const std::function<bool()>& stop);
  // No writer c of n's location between n's source s (literal r) and n.
  void between(uint32_t n, uint32_t s, uint32_t c, int r);
  // Lazy "between" (sc): of the clauses between() would make for the
  // sources noted, those the linear order `pos` (positions of the nodes in
  // `runs`, a linear extension of the model's order) breaks for a read at
  // or before position `upto`; returns how many were added. Reads the
  // model, so call it before adding clauses.
  uint32_t refine_between(const std::vector<char>& runs, const std::vector<uint32_t>& pos, uint32_t upto);
  // The agent's spin rule (agent/ExecutionModel.h): a thread about to repeat
  // a read it made since its last write in the same register and stack
  // state, when nothing it read since has been written, is not enabled. A
  // node the agent showed to be such a repeat (SatNode::spins) runs only
  // after some write to a location its thread read since that read.
  // A store the thread made in such a window is no progress (the agent's
  // kUnchanged) when it wrote what memory held.
  void encode_spin(uint32_t n);
  // The literal "store w runs and overwrites its own value": forced true
  // when it does, through over(w, s), "the value w overwrites comes from
  // writer s (kSatNone: the initial value)", one of which holds when w runs
  // (a chain: writers appear as the graph grows). Extended once a round.
  int unchanged(uint32_t w);
  int over(uint32_t w, uint32_t s);
  // The literal "writer s writes (some value)", and each value it may write
  // with its literal.
  int writes_lit(uint32_t s);
  std::vector<std::pair<uint64_t, int>> written_values(uint32_t s);
  // The round's goal literals, per node.
  void collect_goals();
  // Solves under `assumptions` (within `conflicts`, unless negative),
  // forbidding the cycles of the model's order until it is acyclic and
  // adding the lazy "between" clauses its order breaks (up to the first
  // goal, or over the `whole` order) until none is; Sat fills answer.order.
  SatSolver::Result solve_acyclic(std::span<const int> assumptions, int64_t conflicts,
                                  const std::function<bool()>& stop, SatAnswer& answer, bool whole = false);
  // The round's goals in tiers, shallowest first (SatGoalTiers.h), each
  // within a conflict budget: Sat or Stopped as solve_acyclic, Unknown when
  // no tier had a goal the budget reached.
  SatSolver::Result solve_tiers(const std::function<bool()>& stop, SatAnswer& answer);
  // A hard round: each goal alone, under the open ends as assumptions, so
  // that one refutation is one goal's; a refuted goal is skipped while the
  // open ends its refutation used (failed assumptions) stay open.
  SatSolver::Result solve_each(const std::function<bool()>& stop, SatAnswer& answer);
  // Proves the exclusion lemmas not proven yet for the chains as they are;
  // returns how many (stops early when `stop` says so).
  uint32_t prove_exclusions(const std::function<bool()>& stop);
  // A read reads at most one value, and only when it runs: over every value
  // variable made so far (by the clauses and the goals).
  void encode_values();

  struct ClauseHash {
    size_t operator()(const std::vector<int>& c) const {
      size_t h = c.size();
      for (int l : c) h = h * 0x9e3779b97f4a7c15ULL + size_t(uint32_t(l));
      return h;
    }
  };
  struct Chain {
    std::unordered_set<int> has;
    int end = 0;  // the open end, false this round
  };

  const SatEventGraph& g_;
  SatSolver& solver_;
  std::vector<int> x_;                                      // per node; 0: no variable yet
  std::vector<std::vector<std::pair<uint64_t, int>>> val_;  // per node, per value it could read
  // Keyed by the pair (n, s), (a, b) with a < b, as (first << 32 | second).
  std::unordered_map<uint64_t, int> src_, o_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t>, int> woke_;  // spin: (n, read, writer, edge key)
  std::map<std::pair<int, uint32_t>, Chain> chains_;
  // encode_spin: a spinner's history above a merged node (its nodes) ->
  // the number naming its chain (key -1 - number).
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, uint32_t> spin_histories_;
  std::unordered_set<std::vector<int>, ClauseHash> added_;
  std::unordered_map<uint32_t, std::unordered_set<uint32_t>> covered_;  // per read: writers its clauses cover
  // Lazy "between" (sc; CTRL_SAT_EAGER_BETWEEN=1 makes them all up front):
  // per read n, and per store w of unchanged(), each source s with its
  // literal (src(n, s), over(w, s)); a model that has the source run before
  // n with another writer of the location between them gets that one
  // clause (refine_between), so a read among W writers costs no W^2 clauses
  // up front. The clauses are the same as the eager ones, so every answer
  // and every refutation is too.
  bool lazy_between_ = false;
  bool lazy_order_ = false;
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, int>>> sources_, over_sources_;
  // unchanged(w): its literal, the writers its clauses cover, the source
  // literals over(w, s), and the stores extended this round.
  std::unordered_map<uint32_t, int> unchanged_;
  std::unordered_map<uint32_t, std::unordered_set<uint32_t>> over_covered_;
  std::unordered_map<uint64_t, int> over_;
  std::unordered_set<uint32_t> unchanged_this_round_;
  std::vector<char> encoded_;           // per node: known when the last round was encoded
  // SatEventGraph::merged_into() handled (descendants re-encoded).
  size_t merges_seen_ = 0;
  std::vector<size_t> amo_done_;        // per node: values whose "at most one" clauses were made
  std::vector<std::vector<int>> goal_;  // per node, this round's goal literals
  // Exclusion lemmas, keyed (acquiring rmw, its next write, other rmw, the
  // value that rmw reads): proven ones with the chain ends their proof
  // used (valid while each is still its chain's open end), and candidates
  // found not to be lemmas.
  using Exclusion = std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, bool>;
  std::map<Exclusion, std::vector<int>> lemmas_;
  std::set<Exclusion> not_lemmas_;
  // Goal literals a hard round refuted, with the chain ends the refutation used.
  std::unordered_map<int, std::vector<int>> refuted_;
  uint32_t fresh_from_ = 0;  // nodes numbered from here on are new since the last round's tiers
  uint32_t fresh_run_ = 0;   // rounds in a row offered the newest history first
  bool hard_ = false;        // a round went past the budget: later rounds too, likely
  uint64_t added_this_round_ = 0;
  int act_ = 0;                          // this round's activation literal
  std::unique_ptr<SatTsoEncoding> tso_;  // tso: set when the graph has store buffers
  SatTransitivity transitivity_{g_, *this};
};

}  // namespace ctrl
