#include "SatEventGraph.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "Operation.h"

namespace ctrl {

namespace {

SatRole role_of(const shm::Event& e) {
  switch (OpKind(e.kind)) {
    case OpKind::Load:
    case OpKind::AtomicLoad:
      return SatRole::Read;
    case OpKind::Store:
    case OpKind::AtomicStore:
      return SatRole::Write;
    case OpKind::Rmw:
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
      return SatRole::Rmw;
    case OpKind::MutexLock:
      return SatRole::Lock;
    case OpKind::MutexTryLock:
      return SatRole::TryLock;
    case OpKind::MutexUnlock:
      return SatRole::Unlock;
    case OpKind::ThreadCreate:
      return SatRole::Create;
    case OpKind::ThreadJoin:
      return SatRole::Join;
    case OpKind::ThreadExit:
      return SatRole::Exit;
    case OpKind::ProcessExit:
      return SatRole::ProcessExit;
    default:
      return SatRole::Other;
  }
}

// Operations that neither read nor write what other threads see.
bool inert(OpKind k) { return k == OpKind::ThreadStart || k == OpKind::Yield || k == OpKind::Fence; }

// tso: whether the operation waits for its thread's buffer to drain (the
// agent's PendingOp::drains, as the event shows it): everything that is not
// a load, a buffered store, a start, a yield or a fence weaker than mfence.
bool drains(const shm::Event& e, SatRole role) {
  if (e.flags & shm::kBuffered) return false;
  switch (role) {
    case SatRole::Read:
      return false;
    case SatRole::Other:
      return OpKind(e.kind) == OpKind::Fence && MemOrder(e.order) == MemOrder::SeqCst;
    default:
      return true;
  }
}

bool same_op(const shm::Event& a, const shm::Event& b) {
  return a.kind == b.kind && a.site == b.site && a.addr == b.addr && a.size == b.size;
}

}  // namespace

uint64_t SatEventGraph::written_value(const shm::Event& e) {
  // A failed compare-exchange writes back what it read (x86 and SATCheck alike).
  return mask((e.flags & shm::kFailed) ? e.value_read : e.value_written, e.size);
}

SatEventGraph::SatEventGraph(bool store_buffers) : store_buffers_(store_buffers) {
  initial_[0] = new_instance(kSatNone, 0);
}

uint32_t SatEventGraph::new_node(uint32_t instance, uint32_t parent) {
  SatNode n;
  n.instance = instance;
  n.parent = parent;
  n.depth = parent == kSatNone ? 0 : nodes_[parent].depth + 1;
  if (parent != kSatNone) n.parents.push_back(parent);
  n.local = instances_[instance].count++;
  n.born = merge_calls_;
  nodes_.push_back(n);
  ++growth_;
  return uint32_t(nodes_.size() - 1);
}

uint32_t SatEventGraph::new_instance(uint32_t creator, uint32_t thread) {
  instances_.push_back(SatInstance{creator, thread, kSatNone, {}});
  uint32_t id = uint32_t(instances_.size() - 1);
  instances_[id].root = new_node(id, kSatNone);
  return id;
}

bool SatEventGraph::fail(std::string why) {
  if (why_.empty()) why_ = std::move(why);
  return false;
}

bool SatEventGraph::before_in_thread(uint32_t a, uint32_t b) const {
  if (nodes_[a].instance != nodes_[b].instance) return false;
  if (a == b) return true;
  if (instances_[nodes_[a].instance].merged) {
    if (reach_at_ != growth_) {
      // Ancestor sets in a topological order of each merged instance.
      reach_.assign(nodes_.size(), {});
      std::vector<uint32_t> indeg(nodes_.size(), 0), ready;
      for (uint32_t n = 0; n < nodes_.size(); ++n) {
        if (!instances_[nodes_[n].instance].merged) continue;
        reach_[n].assign(instances_[nodes_[n].instance].count / 64 + 1, 0);
        indeg[n] = uint32_t(nodes_[n].parents.size());
        if (indeg[n] == 0) ready.push_back(n);
      }
      while (!ready.empty()) {
        uint32_t p = ready.back();
        ready.pop_back();
        for (const SatEdge& e : nodes_[p].edges) {
          auto& r = reach_[e.child];
          for (size_t w = 0; w < r.size(); ++w) r[w] |= reach_[p][w];
          r[nodes_[p].local / 64] |= uint64_t(1) << (nodes_[p].local % 64);
          if (--indeg[e.child] == 0) ready.push_back(e.child);
        }
      }
      reach_at_ = growth_;
    }
    return reach_[b][nodes_[a].local / 64] >> (nodes_[a].local % 64) & 1;
  }
  if (nodes_[a].depth > nodes_[b].depth) return false;
  while (nodes_[b].depth > nodes_[a].depth) b = nodes_[b].parent;
  return a == b;
}

bool SatEventGraph::mergeable(uint32_t n) const {
  const SatNode& node = nodes_[n];
  // tso: a flush gains a parent when its store's histories merge.
  if (node.role == SatRole::Flush) return node.store != kSatNone;
  return node.role == SatRole::Read && node.op.value_written != 0;
}

std::vector<char> SatEventGraph::ancestors(uint32_t n) const {
  std::vector<char> seen(nodes_.size(), 0);
  std::vector<uint32_t> todo{n};
  seen[n] = 1;
  while (!todo.empty()) {
    uint32_t m = todo.back();
    todo.pop_back();
    for (uint32_t p : nodes_[m].parents)
      if (!seen[p]) seen[p] = 1, todo.push_back(p);
  }
  return seen;
}

std::vector<uint32_t> SatEventGraph::descendants(uint32_t n, const std::function<bool(uint32_t)>& leaf) const {
  std::vector<uint32_t> out, todo{n};
  std::unordered_set<uint32_t> seen{n};
  while (!todo.empty()) {
    uint32_t d = todo.back();
    todo.pop_back();
    out.push_back(d);
    if (leaf && leaf(d)) continue;
    for (const SatEdge& e : nodes_[d].edges)
      if (e.child < nodes_.size() && seen.insert(e.child).second) todo.push_back(e.child);
  }
  return out;
}

bool SatEventGraph::changes_memory(uint32_t p, uint32_t child) const {
  const SatNode& node = nodes_[p];
  if (node.role == SatRole::Read) return false;
  if (node.role != SatRole::Rmw) return true;
  for (const SatEdge& e : node.edges)
    if (e.child == child) return e.written != e.key;
  return true;
}

bool SatEventGraph::merge_point(uint32_t p, uint32_t child) const {
  if (!changes_memory(p, child)) return false;
  // tso: only with an empty store buffer (right after an operation that
  // drained it): the state's fingerprint does not cover what the buffer
  // holds.
  return !store_buffers_ || (nodes_[p].drains && nodes_[p].writes());
}

uint32_t SatEventGraph::same_state(uint32_t id, const shm::Event& e) const {
  const SatNode& node = nodes_[id];
  uint32_t p = node.parent;
  // Only a history learnt in this execution joins an older one: the edge
  // redirected is then new to the encoding's transitivity rows.
  if (p == kSatNone || nodes_[p].born != merge_calls_) return kSatNone;
  // Only just after its thread changed memory, on every history into the
  // node: the reads since the thread last changed memory (where a spin
  // leads back to, merge()'s `run`) then never reach above a merged node,
  // so a spin key means the same on every history through it. (Dijkstra's
  // seq_cst lock: a history whose exchange left c[i] as it was met, at the
  // next read, one whose exchange had changed it; the read after that was a
  // spin back above the merge on the first and a new node on the second.)
  if (!merge_point(p, id)) return kSatNone;
  auto it = by_state_.find({node.instance, e.site, e.addr, e.value_written});
  if (it == by_state_.end()) return kSatNone;
  std::vector<char> above;  // the nodes with a path to p
  for (uint32_t y : it->second) {
    if (y == id || !nodes_[y].known || !same_op(nodes_[y].op, e)) continue;
    if (!std::all_of(nodes_[y].parents.begin(), nodes_[y].parents.end(), [&](uint32_t q) { return merge_point(q, y); }))
      continue;
    if (above.empty()) above = ancestors(p);
    if (above[y]) continue;  // y leads to p: a cycle
    return y;
  }
  return kSatNone;
}

void SatEventGraph::redirect(uint32_t id, uint32_t y) {
  SatNode& node = nodes_[id];
  uint32_t p = node.parent;
  for (SatEdge& e : nodes_[p].edges)
    if (e.child == id) e.child = y;
  nodes_[y].parents.push_back(p);
  merged_into_.push_back(y);
  node.parent = kSatNone;
  node.parents.clear();
  instances_[node.instance].merged = true;
  ++merges_done_;
  ++growth_;
  if (!store_buffers_) return;
  // tso: the first buffered stores below y now follow the new history's
  // last buffered store too: their flushes follow its flush.
  auto buffered = [&](uint32_t d) { return nodes_[d].buffered && nodes_[d].flush != kSatNone; };
  for (uint32_t d : descendants(y, buffered))
    if (buffered(d)) add_flush_parents(d);
}

std::vector<uint32_t> SatEventGraph::flush_parents(uint32_t w) const {
  // FIFO: after the flush of the previous buffered store on each history
  // into w (the flush instance's root where there is none).
  uint32_t fi = instances_[nodes_[w].instance].flushes;
  std::vector<uint32_t> out, todo(nodes_[w].parents.begin(), nodes_[w].parents.end());
  std::unordered_set<uint32_t> seen(todo.begin(), todo.end());
  bool root = todo.empty();
  while (!todo.empty()) {
    uint32_t p = todo.back();
    todo.pop_back();
    if (nodes_[p].buffered && nodes_[p].flush != kSatNone) {
      if (std::find(out.begin(), out.end(), nodes_[p].flush) == out.end()) out.push_back(nodes_[p].flush);
      continue;
    }
    if (nodes_[p].parents.empty()) root = true;
    for (uint32_t q : nodes_[p].parents)
      if (seen.insert(q).second) todo.push_back(q);
  }
  if (root) out.push_back(instances_[fi].root);
  return out;
}

void SatEventGraph::add_flush_parents(uint32_t w) {
  uint32_t f = nodes_[w].flush;
  uint32_t fi = nodes_[f].instance;
  for (uint32_t q : flush_parents(w)) {
    if (std::find(nodes_[f].parents.begin(), nodes_[f].parents.end(), q) != nodes_[f].parents.end()) continue;
    nodes_[f].parents.push_back(q);
    nodes_[q].edges.push_back(SatEdge{w, f, 0});
    instances_[fi].merged = true;
    ++growth_;
  }
}

uint32_t SatEventGraph::location(const shm::Event& e, bool mutex) {
  auto it = by_addr_.find({e.addr, mutex});
  if (it != by_addr_.end()) {
    if (!mutex && locations_[it->second].size != e.size) {
      fail("accesses of different sizes at one address");
      return kSatNone;
    }
    return it->second;
  }
  if (!mutex) {
    // Overlap with a neighbour of another address.
    auto next = by_addr_.lower_bound({e.addr, false});
    if (next != by_addr_.end() && !next->first.second && next->first.first < e.addr + e.size)
      return fail("overlapping accesses of different addresses"), kSatNone;
    if (next != by_addr_.begin()) {
      auto prev = std::prev(next);
      while (prev != by_addr_.begin() && prev->first.second) --prev;
      if (!prev->first.second && prev->first.first + locations_[prev->second].size > e.addr)
        return fail("overlapping accesses of different addresses"), kSatNone;
    }
  }
  SatLocation loc;
  loc.addr = e.addr;
  loc.size = mutex ? 0 : e.size;
  loc.mutex = mutex;
  if (mutex) loc.init = 0;
  locations_.push_back(loc);
  uint32_t id = uint32_t(locations_.size() - 1);
  by_addr_[{e.addr, mutex}] = id;
  return id;
}

bool SatEventGraph::learn(uint32_t id, const shm::Event& e) {
  auto k = OpKind(e.kind);
  SatRole role = role_of(e);
  if (role == SatRole::Other && !inert(k)) return fail(std::string("the operation ") + op_name(k));
  bool memory = role == SatRole::Read || role == SatRole::Write || role == SatRole::Rmw;
  if (memory && (e.size == 0 || e.size > 8 || (e.size & (e.size - 1)) != 0))
    return fail("an access of " + std::to_string(e.size) + " bytes");
  if (memory && e.aux && (k == OpKind::Load || k == OpKind::Store)) return fail("string instructions");
  uint32_t loc = kSatNone;
  if (memory) loc = location(e, false);
  if (role == SatRole::Lock || role == SatRole::TryLock || role == SatRole::Unlock) loc = location(e, true);
  if ((memory || role == SatRole::Lock || role == SatRole::TryLock || role == SatRole::Unlock) && loc == kSatNone)
    return false;
  SatNode& node = nodes_[id];
  node.known = true;
  // A node made as the next one of a history that stopped there is new to
  // the encoding until now (same_state()).
  node.born = merge_calls_;
  node.op = e;
  node.role = role;
  node.loc = loc;
  node.drains = store_buffers_ && drains(e, role);
  instances_[node.instance].nodes.push_back(id);
  if (loc != kSatNone) {
    if (node.reads()) locations_[loc].readers.push_back(id);
    if (node.writes()) locations_[loc].writers.push_back(id);
  }
  ++growth_;
  return true;
}

bool SatEventGraph::make_spin(uint32_t a, uint64_t key, uint32_t to) {
  SatNode& node = nodes_[a];
  if (!node.spin_keys.empty() && node.spin_to != to) return fail("a spin loop that leads back to two places");
  auto edge = std::find_if(node.edges.begin(), node.edges.end(), [&](const SatEdge& e) { return e.key == key; });
  uint32_t child = edge->child;
  // What the edge led to was only ever seen parked (or not at all): it is
  // this node again, so it is forgotten.
  SatNode& b = nodes_[child];
  // A node other histories reach too (merged) stays theirs.
  auto& ps = b.parents;
  if (ps.size() > 1) {
    ps.erase(std::find(ps.begin(), ps.end(), a));
    b.parent = ps.front();
  } else if (!b.edges.empty()) {
    return fail("the same history did something else (nondeterminism ctrl does not control)");
  } else if (b.known) {
    auto drop = [child](std::vector<uint32_t>& v) { v.erase(std::remove(v.begin(), v.end(), child), v.end()); };
    drop(instances_[b.instance].nodes);
    if (b.loc != kSatNone) {
      drop(locations_[b.loc].readers);
      drop(locations_[b.loc].writers);
    }
    b.known = false;
    b.parents.clear();
    b.loc = kSatNone;
    b.role = SatRole::Other;
    b.spins = false;
  }
  nodes_[a].edges.erase(edge);
  nodes_[a].spin_keys.push_back(key);
  nodes_[a].spin_to = to;
  ++growth_;
  return true;
}

void SatEventGraph::add_flush(uint32_t w) {
  if (nodes_[w].flush != kSatNone) return;
  uint32_t owner = nodes_[w].instance;
  if (instances_[owner].flushes == kSatNone) {
    uint32_t fi = new_instance(instances_[owner].root);
    instances_[fi].owner = owner;
    instances_[owner].flushes = fi;
    SatNode& root = nodes_[instances_[fi].root];
    root.known = true;
    root.role = SatRole::Flush;
    root.op.kind = uint16_t(OpKind::Flush);
    instances_[fi].nodes.push_back(instances_[fi].root);
  }
  uint32_t fi = instances_[owner].flushes;
  // FIFO: after the flush of the previous buffered store on this path (on
  // each path, once histories merged: add_flush_parents()).
  uint32_t after = flush_parents(w).front();
  uint32_t f = new_node(fi, after);
  SatNode& flush = nodes_[f];
  flush.known = true;
  flush.role = SatRole::Flush;
  flush.op = nodes_[w].op;
  flush.op.kind = uint16_t(OpKind::Flush);
  flush.loc = nodes_[w].loc;
  flush.store = w;
  instances_[fi].nodes.push_back(f);
  nodes_[after].edges.push_back(SatEdge{w, f, 0});
  nodes_[w].flush = f;
  add_flush_parents(w);
}

bool SatEventGraph::merge(const shm::Event* events, uint64_t n, const shm::Event* pending, uint64_t npending) {
  if (!why_.empty()) return false;
  ++merge_calls_;
  std::unordered_map<uint32_t, uint32_t> at;        // thread -> its next node
  std::unordered_map<uint32_t, uint32_t> instance;  // thread -> instance
  // thread -> the (node, value) of the reads it made since it last changed memory
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint64_t>>> run;
  std::set<uint32_t> written;                           // locations stored to (in memory) so far
  std::unordered_map<uint32_t, uint32_t> buffered_loc;  // tso: a buffered store's step -> its location
  for (uint64_t i = 0; i < n; ++i) {
    const shm::Event& e = events[i];
    if (!store_buffers_ && (e.thread >= shm::kFlushActorBase || (e.flags & (shm::kBuffered | shm::kForwarded))))
      return fail("store buffers under a model without them");
    if (e.thread >= shm::kFlushActorBase) {
      // A flush: memory now holds the store (its node's flush node was made
      // when the store ran).
      if (OpKind(e.kind) != OpKind::Flush) return fail("a store-buffer actor's operation that is not a flush");
      auto s = buffered_loc.find(uint32_t(e.aux));
      if (s == buffered_loc.end()) return fail("a flush of a store the graph did not see buffered");
      written.insert(s->second);
      continue;
    }
    auto cur = at.find(e.thread);
    if (cur == at.end()) {
      auto [it, fresh] = initial_.try_emplace(e.thread, 0);
      if (fresh) it->second = new_instance(kSatNone, e.thread);
      instance[e.thread] = it->second;
      cur = at.emplace(e.thread, instances_[it->second].root).first;
    }
    SatRole role = role_of(e);
    uint64_t key = 0;
    if (role == SatRole::Read || role == SatRole::Rmw) key = mask(e.value_read, e.size);
    if (role == SatRole::TryLock) key = (e.flags & shm::kFailed) ? 1 : 0;

    uint32_t id = cur->second;
    bool repeat = false;
    // A read in the same register and stack state (kSameState) as an
    // earlier visit of it since the thread last changed memory: everything
    // the thread did in between only read, so it is at the very same point
    // in the very same state, the same node again. The value its latest
    // read got becomes that read's spin key (reading it leads back; the
    // agent holds the thread back there until something it read changes).
    // Without this, an acquisition that failed once before it succeeded and
    // one that succeeded at once were different histories (2^n per thread
    // on a spinlock, n here), and so were Dekker's rounds that backed off.
    if ((e.flags & shm::kSameState) && (role == SatRole::Read || role == SatRole::Rmw)) {
      auto& r = run[e.thread];
      if (!r.empty()) {
        auto [p, pkey] = r.back();
        const SatEdge* via = nodes_[p].edge(pkey);
        bool here = via ? via->child == id : (nodes_[p].spins_on(pkey) && nodes_[p].spin_to == id);
        size_t i = r.size();
        while (i > 0 && !same_op(nodes_[r[i - 1].first].op, e)) --i;
        if (here && i > 0) {
          uint32_t a = r[i - 1].first;
          if (via && !make_spin(p, pkey, a)) return false;
          id = a;
          repeat = true;
          r.resize(i - 1);
        }
      }
    }

    // A new history's read in the state of a read another history made
    // there: the same node from here on (see the header).
    bool stated = role == SatRole::Read && e.value_written != 0;
    if (stated && !repeat && !nodes_[id].known && nodes_[id].edges.empty() && !(e.flags & shm::kSameState)) {
      uint32_t y = same_state(id, e);
      if (y != kSatNone) {
        redirect(id, y);
        id = y;
      }
    }
    SatNode* node = &nodes_[id];
    if (node->known) {
      if (!same_op(node->op, e) || (role == SatRole::Write && written_value(node->op) != mask(e.value_written, e.size)))
        return fail("the same history did something else (nondeterminism ctrl does not control)");
    } else {
      if (!learn(id, e)) return false;
      if (stated) by_state_[{nodes_[id].instance, e.site, e.addr, e.value_written}].push_back(id);
      node = &nodes_[id];
    }
    if ((e.flags & shm::kSameState) && !repeat) node->spins = true;
    if (store_buffers_ && node->writes()) {
      bool buffered = e.flags & shm::kBuffered;
      // A node first learnt parked did not show whether it buffers.
      if (node->edges.empty() && !node->buffered && buffered) {
        node->buffered = true;
        node->drains = false;
        add_flush(id);
        node = &nodes_[id];
      } else if (node->buffered != buffered) {
        return fail("a store buffered in one execution and not in another");
      }
    }
    // The initial value, read (from memory, not from the thread's own
    // buffer) before any store of this execution reached memory.
    if (node->loc != kSatNone && !locations_[node->loc].mutex && (role == SatRole::Read || role == SatRole::Rmw) &&
        !(e.flags & shm::kForwarded) && !written.count(node->loc)) {
      auto& init = locations_[node->loc].init;
      if (init && *init != key) return fail("a location whose initial value changed between executions");
      if (!init) ++growth_;
      init = key;
    }
    if (node->loc != kSatNone && node->writes()) {
      if (node->buffered)
        buffered_loc[e.step] = node->loc;
      else
        written.insert(node->loc);
    }

    uint64_t wrote = role == SatRole::Rmw ? written_value(e) : 0;
    bool changes = !(role == SatRole::Read || (role == SatRole::Rmw && wrote == key));
    if (changes)
      run.erase(e.thread);
    else
      run[e.thread].emplace_back(id, key);
    if (!changes && node->spins_on(key)) {
      at[e.thread] = node->spin_to;  // back where the spin started
      continue;
    }
    const SatEdge* edge = node->edge(key);
    uint32_t child;
    if (edge) {
      if (role == SatRole::Rmw && edge->written != wrote)
        return fail("the same history did something else (nondeterminism ctrl does not control)");
      child = edge->child;
    } else {
      uint32_t inst = node->instance;
      child = new_node(inst, id);
      node = &nodes_[id];
      node->edges.push_back(SatEdge{key, child, wrote});
    }
    if (role == SatRole::Create) {
      uint32_t t = uint32_t(e.aux);
      if (node->target == kSatNone) {
        uint32_t inst = new_instance(id);
        nodes_[id].target = inst;
      }
      node = &nodes_[id];
      instance[t] = node->target;
      at[t] = instances_[node->target].root;
    }
    if (role == SatRole::Join) {
      auto joined = instance.find(uint32_t(e.aux));
      if (joined == instance.end()) return fail("a join of a thread whose creation was not seen");
      if (node->target == kSatNone) node->target = joined->second;
      if (node->target != joined->second) return fail("the same history joined another thread");
    }
    at[e.thread] = child;
  }
  for (uint64_t i = 0; i < npending; ++i) {
    auto cur = at.find(pending[i].thread);
    if (cur == at.end() || nodes_[cur->second].known) continue;
    if (OpKind(pending[i].kind) == OpKind::None) continue;
    if (!learn(cur->second, pending[i])) return false;
    SatNode& parked = nodes_[cur->second];
    if (parked.reads() && !(pending[i].enabled >> pending[i].thread & 1)) parked.spins = true;
  }
  return true;
}

}  // namespace ctrl
