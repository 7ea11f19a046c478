// x86-TSO in the SAT question of --strategy sat (SatEncoder.h), after
// SATCheck's TSO extension (Demsky, Lam, OOPSLA 2015, section 6.4) on the
// graph of SatEventGraph.h, where a buffered store is two nodes: the store
// in its thread's trie and its flush in the thread's flush instance.
//
// What changes from sequential consistency:
// - A store is visible to other threads at its visibility point vis(s):
//   its flush when it was buffered, the store itself otherwise (locked
//   instructions, unbuffered stores, mutex operations). Cross-thread
//   reads-from and "no writer in between" use visibility points.
// - A flush runs exactly when its store runs, after it; flushes of one
//   thread are in store order (the flush instance's trie).
// - A read n whose thread stored to its location earlier on its path (L,
//   the last such store) reads L's value when L's flush comes after n
//   (store forwarding) or when nothing reached memory between L's flush
//   and n; any other source needs L's flush before n. With no such store,
//   it reads memory: the latest visibility point before it, or the initial
//   value when there is none. So a load passes its thread's older buffered
//   stores to other locations (W->R is not ordered), and nothing else is
//   reordered.
// - A node that drains (mfence, locked instructions, unbuffered stores,
//   synchronisation, exits: SatNode::drains) runs after the flush of the
//   last buffered store before it on its path (and so after all earlier
//   ones, through the flush chain's transitivity).
//
// Incrementality as in SatEncoder.h: every clause holds for every later
// graph; a read's sources are a growing chain (the same key as under sc).
//
// Invariants: used only when the graph has store buffers; encode_read
// replaces SatEncoder::encode_read for every read node, encode_node adds
// the flush and drain clauses of every known node.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "SatEventGraph.h"
#include "SatTransitivity.h"

namespace ctrl {

class SatEncoder;

class SatTsoEncoding {
 public:
  SatTsoEncoding(const SatEventGraph& graph, SatEncoder& encoder) : g_(graph), e_(encoder) {}
  // Where store s becomes visible to other threads.
  uint32_t vis(uint32_t s) const;
  // The flush and drain clauses of known node n.
  void encode_node(uint32_t n);
  // Read node n's reads-from; false when `stop` said so (as SatEncoder's).
  bool encode_read(uint32_t n, const std::function<bool()>& stop);
  // SatEncoder::unchanged() for a buffered store w: "w runs and stores
  // what its thread saw there" (the agent's kUnchanged compares with the
  // thread's own view: its newest buffered store there, else memory), with
  // the sources of that view as a read at w would have them.
  int unchanged(uint32_t w);
  // Each flush against the nodes of other instances (threads other than
  // its store's, other flush instances) that it is ordered against
  // (SatTransitivity.h), eagerly: a flush runs after its store and before
  // the first drains below it, so "f before a" means "store before a" and
  // "a before f" means "a before each such drain that runs". Cycles through
  // a thread and its flush instance then meet the two-instance
  // transitivity instead of the lazy refinement. Each pair once, and again
  // for a drain new since the last round (not in `encoded`).
  void encode_windows(const std::vector<char>& encoded, const SatTransitivity& ordered);
  // A merge put older nodes of n's thread before it: its clauses are made
  // again over every writer.
  void forget(uint32_t n) { covered_.erase(n); }
  // A merge put writer w after older writers of its thread: read n's
  // clauses are made again for it.
  void forget(uint32_t n, uint32_t w) {
    if (auto it = covered_.find(n); it != covered_.end()) it->second.erase(w);
  }

 private:
  // The last store to n's location on n's path in its own thread since
  // the thread last drained its buffer, or kSatNone. (Past a drain every
  // earlier store is in memory, read as other threads' are; and histories
  // merge only right after a drain, so the walk up the first history never
  // leaves what every history into n shares.)
  uint32_t last_own_store(uint32_t n) const;
  // The last buffered store before n on its path since the thread last
  // drained, or kSatNone.
  uint32_t last_buffered(uint32_t n) const;
  // "n's source s (literal r) is not overwritten in memory before n by c".
  void between(uint32_t n, uint32_t s, uint32_t c, int r);

  const SatEventGraph& g_;
  SatEncoder& e_;
  std::unordered_map<uint32_t, std::unordered_set<uint32_t>> covered_;  // per read: writers its clauses cover
  std::unordered_set<uint64_t> windows_;                                // (f << 32 | a): the window pair made
};

}  // namespace ctrl
