// Whether an execution graph is consistent under RC11 or C11 (RC11 without
// its no-thin-air axiom), following Lahav, Vafeiadis, Kang, Hur and Dreyer,
// "Repairing sequential consistency in C/C++11" (PLDI 2017):
//  * happens-before (po, synchronises-with through release sequences and
//    fences, thread creation and joins) is acyclic;
//  * coherence: hb ; eco? is irreflexive, checked as its four pairwise
//    forms (CoWW, CoWR, CoRW, CoRR) on each location's mo positions;
//  * atomicity: a read-modify-write's write comes right after the store it
//    read in mo;
//  * SC: psc = psc_base ∪ psc_F is acyclic (without SC fences on the sparse
//    graph of PscGraph.h, else on bit matrices over the memory events);
//  * rc11 only: po ∪ rf (∪ thread synchronisation) is acyclic.
// A read whose store is not in the graph (rf == kNone: a promise not kept
// yet, or a store beyond a prefix) constrains nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ExecutionGraph.h"
#include "SharedRegion.h"

namespace ctrl {

class PscGraph;

// Happens-before as vector clocks: clock(e)[t] is how many of thread t's
// events happen before e or are e.
class HappensBefore {
 public:
  // False when hb is cyclic (the graph is then inconsistent).
  bool compute(const ExecutionGraph& g);
  // a happens strictly before b.
  bool before(uint32_t a, uint32_t b) const {
    return a != b && clocks_[b][events_->at(a).thread] > events_->at(a).index;
  }
  // The clock event e of g would have, from the clocks of its predecessors
  // (computed on a graph that agrees with g on them).
  std::vector<uint32_t> clock_of(const ExecutionGraph& g, uint32_t e) const;
  // clock(e)[t].
  uint32_t clock(uint32_t e, uint32_t t) const { return t < clocks_[e].size() ? clocks_[e][t] : 0; }
  // psc's sparse graph over the graph computed last (which has no SC
  // fence), built at the first call.
  const PscGraph& psc() const;

 private:
  const ExecutionGraph* events_ = nullptr;
  std::vector<std::vector<uint32_t>> clocks_;
  mutable std::shared_ptr<const PscGraph> psc_;
};

// Whether g is consistent given that all of it but its last event is:
// checks what the last event adds (its coherence pairs, atomicity around
// it, SC when it can matter). `hb` holds clocks for g's other events.
bool consistent_last(const ExecutionGraph& g, const HappensBefore& hb, shm::MemoryModel model);

// psc acyclic, computed on bit matrices over g's memory events (cubic):
// what inconsistency() uses when g has seq_cst fences, and the reference
// PscGraph is tested against.
bool psc_acyclic_by_matrices(const ExecutionGraph& g, const HappensBefore& hb);

// Empty when consistent, else which axiom fails.
std::string inconsistency(const ExecutionGraph& g, shm::MemoryModel model);
inline bool consistent(const ExecutionGraph& g, shm::MemoryModel model) { return inconsistency(g, model).empty(); }

}  // namespace ctrl
