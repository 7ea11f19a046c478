// The eager part of the order's transitivity in --strategy sat
// (SatEncoder.h): between two thread instances, over only the nodes that
// are ordered against the other instance.
//
// A node is ordered against instance i when it has an order variable with
// one of i's nodes: some clause about reads-from, a spin, a flush window,
// a create, join or exit needed "before" between them. A node with none
// (under tso a buffered store, whose memory effect is its flush; a load
// only the other thread's flushes write to) is never constrained against
// i, so an execution can place it anywhere its thread's order allows. The
// rows are then "a before b implies a before c" for c the next nodes below
// b on each path that are ordered against a's instance: for two chains of
// such nodes that is all of transitivity, as with every node (Dekker under
// tso: about a fifth of the pairs). Cycles through three instances stay
// lazy (SatEncoder::solve_acyclic), and every clause holds in every
// execution, so this decides only speed.
//
// Who is ordered against whom is read from the encoder's variables each
// round, so a pair a later clause orders (a lazy "between", a lemma) joins
// the chains at the next round.
//
// Invariants: refresh() before ordered()/ordered_with() see this round's
// variables; rows are only ever added (each clause at most once).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>
#include <vector>

#include "SatEventGraph.h"

namespace ctrl {

class SatEncoder;

class SatTransitivity {
 public:
  SatTransitivity(const SatEventGraph& graph, SatEncoder& encoder) : g_(graph), e_(encoder) {}
  // Reads who is ordered against whom from the encoder's order variables.
  void refresh();
  bool ordered_with(uint32_t n, uint32_t instance) const;
  // Instance j's nodes ordered against instance i, in j's node order.
  const std::vector<uint32_t>& ordered(uint32_t j, uint32_t i) const;
  // The rows not made yet; false when `stop` said so (the rest is made at
  // the next call).
  bool encode(const std::function<bool()>& stop);

 private:
  // The next nodes below b, on every path, ordered against instance i.
  void next_ordered(uint32_t b, uint32_t i, std::vector<uint32_t>& out);

  const SatEventGraph& g_;
  SatEncoder& e_;
  std::vector<std::vector<uint32_t>> with_;                // per node: the instances it is ordered against
  std::vector<std::vector<std::vector<uint32_t>>> lists_;  // [j][i]: ordered(j, i)
  std::unordered_set<uint64_t> rowed_;                     // (a << 32 | j): a's row against j is made
  std::vector<std::unordered_set<uint64_t>> edges_done_;   // per instance i: (b << 32 | c) chain edges rowed
  std::vector<uint32_t> seen_;                             // next_ordered's walk marks
  uint32_t stamp_ = 0;
};

}  // namespace ctrl
