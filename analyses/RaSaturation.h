// The saturated semantics of release-acquire (TRACER: Abdulla, Atig, Jonsson,
// Ngo, "Optimal stateless model checking under the release-acquire
// semantics", OOPSLA 2018, section 4): a trace (po, rf) with a partial
// coherence order co holding exactly the edges every RA-consistent total
// extension must have, built event by event in an order that extends
// po ∪ rf (an execution order).
//
// RA (every write a release, every read an acquire): for every location x,
// po ∪ rf ∪ co_x ∪ fr_x is acyclic. hb = (po ∪ rf ∪ sync)+, where sync is
// thread creation/join and the synchronisation objects the execution graph
// chains (ExecutionGraph::build's sync_from).
//
//  * readable(e): the writes to e's location the read e may read: those not
//    (po ∪ rf ∪ co_x)+-before a write to x e's thread has already seen
//    (hb-before or equal to its previous event); a read-modify-write may
//    moreover not read a write another read-modify-write already read.
//  * push(e): appends e (a read must read a readable write: false, nothing
//    added, if not). A read adds v ->co src for each write v it has seen that
//    is readable (saturation); a read-modify-write is placed right after the
//    write it reads: a chain (a write, the RMWs that read it one after the
//    other) is contiguous in co. So an edge into a RMW goes to its chain's
//    first write, a RMW is co-before every write its source precedes in
//    (po ∪ rf ∪ co_x)+, and a write some chain member precedes is co-after
//    the chain's last.
//
// Invariant (the paper's Lemma 4.7 and Theorem 4.2): after every successful
// push the trace is saturated and acyclic, so it extends to a total co: the
// (po, rf) pushed so far is RA-consistent. A (po, rf) is RA-consistent iff
// pushing it in any order extending po ∪ rf succeeds.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ExecutionGraph.h"

namespace ctrl {

class RaSaturation {
 public:
  // The writes (steps, or kInit) event e, about to be pushed, may read.
  std::vector<uint32_t> readable(const GraphEvent& e) const;
  // The same for a reader that has seen the writes `seen` (steps).
  std::vector<uint32_t> readable_after(const std::vector<uint32_t>& seen, uint64_t loc, bool rmw) const;
  // Appends e (its rf, sync_from: earlier steps or kInit/kNone).
  bool push(const GraphEvent& e);
  // The writes to loc no other write to loc follows in (po ∪ rf ∪ co_loc)+:
  // every thread may read them.
  std::vector<uint32_t> maximal_writes(uint64_t loc) const;
  size_t size() const { return events_.size(); }
  // a is hb-before b (strictly), both pushed.
  bool hb_before(uint32_t a, uint32_t b) const { return a != b && bit(hb_[b], a); }
  // Steps hb-before e (strictly) or equal to it, for e pushed.
  const std::vector<uint64_t>& hb_of(uint32_t e) const { return hb_[e]; }
  static bool bit(const std::vector<uint64_t>& s, uint32_t i) {
    return i / 64 < s.size() && (s[i / 64] >> (i % 64) & 1);
  }

 private:
  // The writes to loc hb-before or equal to `last` (a step or kNone).
  std::vector<uint32_t> seen(uint32_t last, uint32_t sync, uint64_t loc) const;
  // The writes to loc with a (po ∪ rf ∪ sync ∪ co_loc)+ path to one of
  // `seeds` (writes to loc), as a bitset over steps.
  std::vector<uint64_t> before(const std::vector<uint32_t>& seeds, uint64_t loc) const;
  // Writes to loc `from` has a (po ∪ rf ∪ sync ∪ co_loc)+ path to.
  std::vector<uint32_t> writes_after(uint32_t from, uint64_t loc) const;
  void add_co(uint32_t a, uint32_t b);

  std::vector<GraphEvent> events_;
  std::vector<uint32_t> po_prev_;
  std::vector<uint32_t> last_of_thread_;
  std::vector<std::vector<uint64_t>> hb_;       // per step: hb-predecessors and itself
  std::vector<std::vector<uint32_t>> co_pred_;  // per write: direct co-predecessors
  std::vector<std::vector<uint32_t>> co_succ_;  // per write: direct co-successors
  std::vector<std::vector<uint32_t>> succ_;     // per event: po, rf and sync successors
  std::map<uint64_t, uint32_t> chained_;        // per location: writes a read-modify-write read
  struct LocWrites {
    std::vector<uint32_t> list;  // in push order
    std::vector<uint64_t> mask;  // the same as a bitset over steps
  };
  std::map<uint64_t, LocWrites> writes_;
  std::vector<uint32_t> rmw_reader_;          // per write: the read-modify-write that read it
  std::map<uint64_t, uint32_t> init_reader_;  // per location: the RMW that read its initial value
};

}  // namespace ctrl

namespace ctrl {

// --model ra's reading of the orders a program used: every atomic read is
// an acquire, every atomic write a release, a read-modify-write both
// (relaxed is strengthened, seq_cst weakened, as TRACER does); fences then
// order nothing more and are dropped. Non-atomic accesses stay non-atomic.
void as_release_acquire(ExecutionGraph& g);

}  // namespace ctrl
