// RC11's SC axiom (psc acyclic, C11Consistency.h) for a graph without
// seq_cst fences, checked on a sparse graph over its seq_cst memory events
// instead of bit matrices over all events (which made the analysis of one
// execution cubic in its events: issue 22, item 17).
//
// Without SC fences psc = [E_sc]; scb; [E_sc], scb = po ∪ po|≠loc;hb;po|≠loc
// ∪ hb|loc ∪ mo ∪ rb. A cycle of psc exists iff one exists among edges that
// generate the same transitive closure, and those are few per event x:
//  * po: the next SC event of x's thread;
//  * hb|loc: per other thread, the first SC event at x's location that x
//    happens before (the later ones follow by po);
//  * po|≠loc;hb;po|≠loc: with c the first memory event po-after x at another
//    location, per other thread the first SC event b whose last memory event
//    po-before it at another location, d, has c hb d (hb is monotone along
//    po on both sides, so c and d are the best choices and b the first);
//  * mo: the next SC store of x's location in mo;
//  * rb: for a read, the first SC store mo-after the store it reads (not x).
// So each SC event has O(threads) edges, found by binary search on vector
// clocks: acyclicity costs O(n·T·log n).
//
// Restricting to the first `limit` events (a prefix of the execution, which
// under rc11 without promises is a graph of its own with the same hb, mo
// and rf among its events) keeps only generators below the limit, skipping
// the later stores of an mo chain.
//
// Invariant: the graph and clocks given to the constructor outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "ExecutionGraph.h"

namespace ctrl {

class HappensBefore;

class PscGraph {
 public:
  // g has no SC fence; hb holds g's clocks.
  PscGraph(const ExecutionGraph& g, const HappensBefore& hb);

  // psc over the events below `limit` is acyclic.
  bool acyclic(uint32_t limit) const;

  // cand: g's first cand.size() - 1 events (a consistent prefix) and then a
  // new SC event e, whose clock is `clock_e`. Whether e closes a psc cycle:
  // an event e has psc edges to reaches, in the prefix's psc, an event with
  // a psc edge to e (every other edge of cand is one of the prefix's).
  bool closes_cycle(const ExecutionGraph& cand, const std::vector<uint32_t>& clock_e) const;

 private:
  bool sc(uint32_t x) const { return sc_[x]; }
  // Calls f(b) for each generator edge x -> b with b < limit.
  template <class F>
  void successors(uint32_t x, uint32_t limit, F&& f) const;
  // The first SC store of loc's mo at SC-list index k or later, below
  // limit and not `skip` (kNone: none).
  uint32_t sc_store_from(uint64_t loc, size_t k, uint32_t limit, uint32_t skip) const;

  const ExecutionGraph& g_;
  const HappensBefore& hb_;
  std::vector<uint8_t> sc_;            // SC memory events (not fences)
  std::vector<uint32_t> next_sc_po_;   // the thread's next SC event
  std::vector<uint32_t> first_after_;  // c: first memory event po-after, other location
  std::vector<uint32_t> last_before_;  // d: last memory event po-before, other location
  // SC events on a location, per (thread, location), in po.
  std::map<std::pair<uint32_t, uint64_t>, std::vector<uint32_t>> by_thread_loc_;
  // SC events with a d, per thread, in po.
  std::vector<std::vector<uint32_t>> with_d_;
  // Per location: its SC stores in mo; for each mo position p (0: the
  // initial store), the index in that list of the first SC store at p or
  // later.
  struct LocationMo {
    std::vector<uint32_t> sc_stores;
    std::vector<uint32_t> first_sc_from;
  };
  std::map<uint64_t, LocationMo> mo_;
  std::vector<uint32_t> mo_pos_;     // a store's mo position (from 1)
  std::vector<uint32_t> sc_mo_idx_;  // an SC store's index in its sc_stores
  uint32_t threads_ = 0;
};

}  // namespace ctrl
