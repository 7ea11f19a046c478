// The event graph of --strategy sat (SatStrategy.h): every execution seen so
// far, merged, after SATCheck (Demsky, Lam, OOPSLA 2015).
//
// Dependence on a binary (the "coarse" choice of the issue): everything a
// thread does after a load may depend on every value it loaded before. So an
// event's identity across executions is its thread instance and its
// history, the values its thread read before it: each thread instance is a
// trie whose node is a local history and whose operation is what the thread
// does next; edges are keyed by the value the operation read (a trylock's
// result; 0 when it reads nothing). Identity survives loops: every
// iteration is a deeper node. A thread instance is the thread a create node
// made (a child's behaviour may depend on what its creator read).
//
// A read in the same register and stack state (the agent's kSameState) as
// an earlier visit of the same site and location since its thread last
// changed memory (only reads and failed compare-exchanges in between) is
// the same node again: the value the latest read before it got becomes
// that read's spin key (reading it leads back; the agent holds the thread
// back there), which keeps spin loops finite and makes an acquisition that
// failed first the same history as one that succeeded at once.
//
// Histories that reach one state are one node (a DAG, not a trie): when a
// thread's plain read (Load, AtomicLoad) logs the state fingerprint the
// agent computes for spin detection (shm::Header::read_states: its general
// and callee-saved registers, flags and the top 256 bytes of its stack) and
// an earlier history of the same thread instance made a read at the same
// site and location in the same state, the new history's read is that node
// (the edge that led to it is redirected there): from the same state, the
// thread does the same for the same values read. What breaks it: state the
// fingerprint does not cover (the stack beyond 256 bytes, a libatomic
// caller's registers other than rbx, rbp, r12-r15 and its stack, TLS,
// memory only the thread touches that ctrl does not see as a step, kernel
// state such as a file offset): two histories that differ only there are
// taken for one, and what only one of them could do is lost. A merge never
// makes a node reach another it did not reach (no cycle: the node must not
// reach the read's parent), happens only right after the thread changed
// memory on every edge into the node (spin keys then lead back to the same
// node on every history), under store buffers only right after a store
// that drained the buffer (on every history into the node: the fingerprint
// does not cover what the buffer holds), and only from a history learnt in
// this execution. A merge may order two
// older nodes that were on different histories (never both ran) before:
// Dekker's round that backed off once reaches the critical section in the
// state of one that entered at once, so the older back-off nodes now come
// before the section's. merged_into() lists the nodes merged into, so the
// encoder redoes what it made for their descendants (SatEncoder.h).
//
// Locations are exact (address, size) pairs; a mutex is a location of its
// own whose values are 0 (free) and 1 (held). What the graph cannot follow
// (other synchronisation, overlapping accesses of different sizes, an
// event that differs in a history already seen) makes merge() fail with
// why().
//
// Store buffers (--model tso, SatTsoEncoding.h): a buffered store (the
// agent's kBuffered) is two events, its node in its thread's trie (the
// local store, which its own loads see) and its flush, a node of the
// thread instance's flush instance, whose trie mirrors the order of the
// thread's buffered stores on each path (FIFO: a flush's parents are the
// flushes of the previous buffered store on each history into the store,
// the flush instance's root on a history without one; its edge key is the
// store's node id). When histories merge, the first buffered stores below
// the node merged into gain the new history's one as a parent. The flush node exists as soon as the store ran,
// whether or not an execution flushed it. The flush actors' events only
// tell the graph when memory (not the thread's view) changed.
//
// Invariants: a node is known once an execution ran its operation; node
// and instance ids never change; a known node's op matches every execution
// that reached its history; an instance's nodes and edges form a DAG rooted
// at its root, a trie until a merge; `parent` is parents[0] (the history it
// was first reached by).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "SharedRegion.h"

namespace ctrl {

inline constexpr uint32_t kSatNone = UINT32_MAX;

// Flush: a buffered store's flush (tso), or the root of a flush instance
// (store == kSatNone).
enum class SatRole : uint8_t { Other, Read, Write, Rmw, Lock, TryLock, Unlock, Create, Join, Exit, ProcessExit, Flush };

struct SatEdge {
  uint64_t key = 0;  // the value read (a trylock: 0 success, 1 failure)
  uint32_t child = kSatNone;
  uint64_t written = 0;  // Rmw: the value it wrote after reading `key`
};

struct SatNode {
  // depth: along the first history that reached it.
  uint32_t instance = 0, parent = kSatNone, depth = 0;
  // Every node with an edge to it (more than one: histories merged here).
  std::vector<uint32_t> parents;
  // Its index among its instance's nodes, and the merge() call that learnt it.
  uint32_t local = 0, born = 0;
  bool known = false;
  shm::Event op{};
  SatRole role = SatRole::Other;
  uint32_t loc = kSatNone;     // Read, Write, Rmw, Lock, TryLock, Unlock
  uint32_t target = kSatNone;  // Create: the child instance; Join: the joined one
  std::vector<SatEdge> edges;
  // Reading one of spin_keys leads back to spin_to (this node or an
  // ancestor, in the same state, with nothing written in between): the
  // thread spins (a seqlock reader spins on every odd sequence number).
  std::vector<uint64_t> spin_keys;
  uint32_t spin_to = kSatNone;
  bool spins_on(uint64_t v) const { return std::find(spin_keys.begin(), spin_keys.end(), v) != spin_keys.end(); }
  // tso: a store that went to its thread's buffer (a Write, or the store
  // half of an unlocked Rmw) and its flush node; a Flush's store.
  bool buffered = false;
  uint32_t flush = kSatNone, store = kSatNone;
  // tso: waits for its thread's buffer to drain before it runs (locked
  // instructions, mfence, unbuffered stores, synchronisation, exits).
  bool drains = false;
  // The agent took this read for a repeat of an earlier one of its thread in
  // the same register and stack state (kSameState), or held its thread back
  // there as a spinner: it runs only once something it read was written.
  bool spins = false;
  // Reads something (its edges are keyed by a value).
  bool reads() const {
    return role == SatRole::Read || role == SatRole::Rmw || role == SatRole::Lock || role == SatRole::TryLock;
  }
  bool writes() const {
    return role == SatRole::Write || role == SatRole::Rmw || role == SatRole::Lock || role == SatRole::TryLock ||
           role == SatRole::Unlock;
  }
  const SatEdge* edge(uint64_t key) const {
    for (const auto& e : edges)
      if (e.key == key) return &e;
    return nullptr;
  }
};

struct SatInstance {
  uint32_t creator = kSatNone;  // the create node (kSatNone: a thread running from the start)
  uint32_t thread = 0;          // with no creator: its thread index
  uint32_t root = kSatNone;
  std::vector<uint32_t> nodes;  // known nodes, in the order they became known
  // tso: a thread instance's flush instance, and a flush instance's thread
  // instance (a flush instance's creator is its owner's root, so it runs
  // only with its owner).
  uint32_t flushes = kSatNone, owner = kSatNone;
  uint32_t count = 0;   // nodes made (SatNode::local)
  bool merged = false;  // a DAG: some node has two parents
};

struct SatLocation {
  uint64_t addr = 0;
  uint32_t size = 0;
  bool mutex = false;
  std::optional<uint64_t> init;  // value before any store (a mutex: 0, free)
  std::vector<uint32_t> writers, readers;
};

class SatEventGraph {
 public:
  // store_buffers: the executions run under --model tso.
  explicit SatEventGraph(bool store_buffers = false);
  bool store_buffers() const { return store_buffers_; }
  // Merges an execution's events (in step order), and the operations its
  // unfinished threads were parked at (`pending`: known nodes with no edge
  // yet, so that running them is a goal). False when it cannot (why() says
  // why); the graph may then hold part of the execution.
  bool merge(const shm::Event* events, uint64_t n, const shm::Event* pending = nullptr, uint64_t npending = 0);
  const std::string& why() const { return why_; }

  const std::vector<SatNode>& nodes() const { return nodes_; }
  const std::vector<SatInstance>& instances() const { return instances_; }
  const std::vector<SatLocation>& locations() const { return locations_; }
  // a == b or a is an ancestor of b (the same thread instance).
  bool before_in_thread(uint32_t a, uint32_t b) const;
  // A read that may still become the node of another history (its parents
  // may grow): a plain read that logged its state, without store buffers.
  bool mergeable(uint32_t n) const;
  // Histories merged so far (edges redirected to an existing node).
  uint64_t merges() const { return merges_done_; }
  // The node each merge redirected a history to, in merge order: its
  // descendants may have gained ancestors of their thread since.
  const std::vector<uint32_t>& merged_into() const { return merged_into_; }
  // Grows whenever an execution shows something new (a node, an edge, an
  // initial value, a spin key).
  uint64_t size() const { return growth_; }

  static uint64_t mask(uint64_t v, uint32_t size) { return size >= 8 ? v : v & ((uint64_t(1) << (8 * size)) - 1); }
  static uint64_t written_value(const shm::Event& e);

  // The nodes with a path from n, n included, in no particular order; the
  // walk does not go on below a node for which `leaf` is true (that node is
  // in the list).
  std::vector<uint32_t> descendants(uint32_t n, const std::function<bool(uint32_t)>& leaf) const;

 private:
  uint32_t new_node(uint32_t instance, uint32_t parent);
  uint32_t new_instance(uint32_t creator, uint32_t thread = 0);
  bool fail(std::string why);
  // The location of e's access, or kSatNone (why_ set) when it overlaps
  // another of a different address or size.
  uint32_t location(const shm::Event& e, bool mutex);
  // Makes node `id` known with operation e; false (why_ set) when e is not
  // modelled.
  bool learn(uint32_t id, const shm::Event& e);
  // Node a's edge `key` turns out to lead back to `to` (a itself or an
  // ancestor, in the same state: a spin): the edge and what it led to are
  // dropped and `key` becomes a's spin key.
  bool make_spin(uint32_t a, uint64_t key, uint32_t to);
  // tso: store node `w` ran buffered: its flush node (made once).
  void add_flush(uint32_t w);
  // tso: the flushes store w's flush follows, one per history into w (the
  // flush instance's root on a history without a buffered store before w),
  // and adding those its flush does not have yet.
  std::vector<uint32_t> flush_parents(uint32_t w) const;
  void add_flush_parents(uint32_t w);
  // The known node of id's instance in the state of read e that id's
  // history may become (see the header), or kSatNone.
  uint32_t same_state(uint32_t id, const shm::Event& e) const;
  // Whether node p, on its edge to child, changed memory (anything but a
  // read or a read-modify-write that wrote what it read): where merge()'s
  // run of reads since the last change starts again.
  bool changes_memory(uint32_t p, uint32_t child) const;
  // Whether a history may merge just below node p on its edge to child: p
  // changed memory and, under tso, drained the store buffer.
  bool merge_point(uint32_t p, uint32_t child) const;
  // Node id (new, never run) is y: its parent's edge leads to y instead.
  void redirect(uint32_t id, uint32_t y);
  // The nodes with a path to n, n included.
  std::vector<char> ancestors(uint32_t n) const;

  std::vector<SatNode> nodes_;
  std::vector<SatInstance> instances_;
  std::vector<SatLocation> locations_;
  std::map<std::pair<uint64_t, bool>, uint32_t> by_addr_;  // (address, mutex) -> location
  // Threads that ran from the start (the main thread; every thread of a
  // program whose creation ctrl does not see) -> their instance.
  std::map<uint32_t, uint32_t> initial_;
  uint64_t growth_ = 0;
  uint32_t merge_calls_ = 0;  // SatNode::born
  uint64_t merges_done_ = 0;
  std::vector<uint32_t> merged_into_;
  // (instance, site, address, state) -> the read nodes made in that state
  std::map<std::tuple<uint32_t, uint64_t, uint64_t, uint64_t>, std::vector<uint32_t>> by_state_;
  // Per node of a merged instance, the locals of its ancestors (a bitset),
  // as of growth_ == reach_at_.
  mutable std::vector<std::vector<uint64_t>> reach_;
  mutable uint64_t reach_at_ = UINT64_MAX;
  bool store_buffers_ = false;
  std::string why_;
};

}  // namespace ctrl
