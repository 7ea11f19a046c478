#include "SatEncoder.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#include "SatGoalTiers.h"

namespace ctrl {

SatEncoder::SatEncoder(const SatEventGraph& graph, SatSolver& solver) : g_(graph), solver_(solver) {
  if (g_.store_buffers()) tso_ = std::make_unique<SatTsoEncoding>(g_, *this);  // tso:
  const char* eager = std::getenv("CTRL_SAT_EAGER_BETWEEN");
  lazy_between_ = !tso_ && !(eager && std::string(eager) == "1");
  const char* lazy = std::getenv("CTRL_SAT_LAZY_ORDER");
  lazy_order_ = lazy && std::string(lazy) == "1";
}

int SatEncoder::x(uint32_t n) {
  if (!g_.nodes()[n].known) return kFalse;
  if (x_.size() <= n) x_.resize(g_.nodes().size(), 0);
  if (!x_[n]) x_[n] = solver_.new_var();
  return x_[n];
}

int SatEncoder::val(uint32_t n, uint64_t v) {
  if (val_.size() <= n) val_.resize(g_.nodes().size());
  for (auto [w, var] : val_[n])
    if (w == v) return var;
  int var = solver_.new_var();
  val_[n].emplace_back(v, var);
  return var;
}

int SatEncoder::src(uint32_t n, uint32_t s) {
  auto [it, fresh] = src_.try_emplace(uint64_t(n) << 32 | s, 0);
  if (fresh) it->second = solver_.new_var();
  return it->second;
}

int SatEncoder::order(uint32_t a, uint32_t b) {
  const auto& nodes = g_.nodes();
  if (nodes[a].instance == nodes[b].instance) {
    if (g_.before_in_thread(a, b)) return kTrue;
    if (g_.before_in_thread(b, a)) return kFalse;
    return 0;
  }
  auto key = std::minmax(a, b);
  auto [it, fresh] = o_.try_emplace(uint64_t(key.first) << 32 | key.second, 0);
  if (fresh) it->second = solver_.new_var();
  return a < b ? it->second : -it->second;
}

void SatEncoder::clause(std::vector<int> lits) {
  std::vector<int> out;
  for (int l : lits) {
    if (l == 0) return;  // nodes of one thread on different paths: never both run
    if (l == kTrue) return;
    if (l == kFalse) continue;
    out.push_back(l);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (!added_.insert(out).second) return;
  solver_.add_clause(out);
  ++added_this_round_;
}

void SatEncoder::grow(std::pair<int, uint32_t> key, const std::vector<int>& lits) {
  // True whatever runs: nothing to add (no literal here is ever constant true).
  if (std::find(lits.begin(), lits.end(), kTrue) != lits.end()) return;
  auto [it, fresh] = chains_.try_emplace(key);
  Chain& chain = it->second;
  std::vector<int> link;
  if (!fresh) link.push_back(-chain.end);
  for (int l : lits) {
    if (l == kFalse || l == 0) continue;
    if (chain.has.insert(l).second) link.push_back(l);
  }
  if (!fresh && link.size() == 1) return;  // nothing new
  chain.end = solver_.new_var();
  link.push_back(chain.end);
  solver_.add_clause(link);
  ++added_this_round_;
}

int SatEncoder::writes_lit(uint32_t s) {
  const SatNode& n = g_.nodes()[s];
  // A trylock writes when it succeeds (reads a free mutex).
  if (n.role == SatRole::TryLock) return val(s, 0);
  return x(s);
}

std::vector<std::pair<uint64_t, int>> SatEncoder::written_values(uint32_t s) {
  const SatNode& n = g_.nodes()[s];
  switch (n.role) {
    case SatRole::Write:
      return {{SatEventGraph::written_value(n.op), kTrue}};
    case SatRole::Rmw: {
      // Only what it wrote after reading a value it read before is known.
      std::vector<std::pair<uint64_t, int>> out;
      for (const SatEdge& e : n.edges) out.emplace_back(e.written, val(s, e.key));
      return out;
    }
    case SatRole::Lock:
      return {{1, kTrue}};
    case SatRole::TryLock:
      return {{1, writes_lit(s)}};
    case SatRole::Unlock:
      return {{0, kTrue}};
    default:
      return {};
  }
}

bool SatEncoder::encode_read(uint32_t n, const std::function<bool()>& stop) {
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[n];
  const SatLocation& loc = g_.locations()[node.loc];
  // The writers this read's clauses already cover: a clause over writers
  // that were all covered was added then, so only those with a new one are
  // made (the cubic "no writer in between" part above all).
  auto& covered = covered_[n];
  auto fresh = [&](uint32_t w) { return !covered.count(w); };
  std::vector<int> any{-x(n)};
  // The initial value; while it is unknown, reading it is a goal.
  {
    int r = src(n, kSatNone);
    any.push_back(r);
    clause({-r, x(n)});
    if (loc.init) clause({-r, val(n, *loc.init)});
    for (uint32_t c : loc.writers)
      if (c != n && fresh(c)) clause({-r, -writes_lit(c), -order(c, n)});
  }
  for (uint32_t s : loc.writers) {
    if (stop && stop()) return false;
    if (s == n || !nodes[s].known) continue;
    if (nodes[s].instance == node.instance && !g_.before_in_thread(s, n)) continue;
    // A lock waits for a free mutex: it never reads a held one.
    if (node.role == SatRole::Lock && nodes[s].role != SatRole::Unlock) continue;
    int r = src(n, s);
    any.push_back(r);
    // What a read-modify-write writes grows with the values it read.
    if (fresh(s) || nodes[s].role == SatRole::Rmw)
      for (auto [w, lit] : written_values(s)) clause({-r, -lit, val(n, w)});
    if (!fresh(s)) {
      if (!lazy_between_)
        for (uint32_t c : loc.writers)
          if (c != n && c != s && fresh(c)) between(n, s, c, r);
      continue;
    }
    clause({-r, x(n)});
    clause({-r, writes_lit(s)});
    clause({-r, order(s, n)});
    if (lazy_between_) {
      auto& list = sources_[n];
      if (std::find(list.begin(), list.end(), std::make_pair(s, r)) == list.end()) list.emplace_back(s, r);
      continue;
    }
    for (uint32_t c : loc.writers)
      if (c != n && c != s) between(n, s, c, r);
  }
  for (uint32_t w : loc.writers) covered.insert(w);
  grow({0, n}, any);
  return true;
}

void SatEncoder::between(uint32_t n, uint32_t s, uint32_t c, int r) {
  if (tso_) s = tso_->vis(s), c = tso_->vis(c);  // tso: where stores reach memory (used by unchanged() only)
  const auto& nodes = g_.nodes();
  if (nodes[c].instance == nodes[n].instance && order(c, n) == 0) return;
  if (nodes[c].instance == nodes[s].instance && order(s, c) == 0) return;
  clause({-r, -writes_lit(c), -order(s, c), -order(c, n)});
}

uint32_t SatEncoder::refine_between(const std::vector<char>& runs, const std::vector<uint32_t>& pos, uint32_t upto) {
  if (!lazy_between_) return 0;
  const auto& nodes = g_.nodes();
  auto on = [&](int lit) { return lit == kTrue || (lit != kFalse && lit != 0 && solver_.value(lit)); };
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, int>> broken;
  for (const auto* sources : {&sources_, &over_sources_})
    for (const auto& [n, list] : *sources) {
      if (n >= runs.size() || !runs[n] || pos[n] > upto) continue;
      for (auto [s, r] : list) {
        if (!solver_.value(r)) continue;
        for (uint32_t c : g_.locations()[nodes[n].loc].writers)
          if (c != n && c != s && c < runs.size() && runs[c] && pos[s] < pos[c] && pos[c] < pos[n] && on(writes_lit(c)))
            broken.emplace_back(n, s, c, r);
      }
    }
  size_t before = added_.size();
  for (auto [n, s, c, r] : broken) between(n, s, c, r);
  return uint32_t(added_.size() - before);
}

void SatEncoder::encode_spin(uint32_t n) {
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[n];
  if (!node.spins) return;  // the agent never saw it repeat a read in the same state
  // The thread's histories back from n to the read n repeats. Up to a node
  // other histories merged into, the history is the one n's running
  // implies; above it each history is its own window, named by the edges
  // it takes (`path`: what runs and reads to take them) so that its clause
  // holds only when that history runs.
  constexpr size_t kMaxHistories = 64;
  struct Walk {
    uint32_t child, a;
    std::vector<uint32_t> window, stores;  // the thread's reads since the one n repeats; its stores
    std::vector<int> path;                 // empty until the walk crosses a merged node
    std::vector<uint32_t> nodes;           // from the crossing on: its nodes (the chain's name)
  };
  std::vector<Walk> todo;
  size_t histories = 0;
  // Walk w steps up from w.child to its parent `a`; at a merged node, one
  // walk per parent, each from then on naming its history.
  auto up = [&](Walk& w, uint32_t child) {
    const auto& ps = nodes[child].parents;
    w.child = child;
    w.a = ps.empty() ? kSatNone : ps.front();
    if (ps.size() < 2) return true;
    histories += ps.size() - 1;
    if (histories > kMaxHistories) return false;
    w.nodes.push_back(kSatNone);  // crossed a merge: the edges name the history from here on
    for (size_t i = 1; i < ps.size(); ++i) {
      Walk other = w;
      other.a = ps[i];
      todo.push_back(std::move(other));
    }
    return true;
  };
  {
    Walk first{n, kSatNone, {}, {}, {}, {}};
    if (!up(first, n)) return;  // weaker: left unencoded
    todo.push_back(std::move(first));
  }
  while (!todo.empty()) {
    Walk w = std::move(todo.back());
    todo.pop_back();
    bool repeats = false, ends = false;
    while (w.a != kSatNone) {
      const SatNode& an = nodes[w.a];
      const SatEdge* via = nullptr;
      for (const auto& e : an.edges)
        if (e.child == w.child) via = &e;
      if (!via) {
        ends = true;
        break;
      }
      if (!w.nodes.empty()) {
        w.path.push_back(an.reads() ? val(w.a, via->key) : x(w.a));
        w.nodes.push_back(w.a);
      }
      // A read-modify-write that left memory as it was (a failed CAS) reads only.
      bool reads_only = an.role == SatRole::Read || (an.role == SatRole::Rmw && via->written == via->key);
      if (reads_only) {
        w.window.push_back(w.a);
        repeats = an.op.kind == node.op.kind && an.op.site == node.op.site && an.op.addr == node.op.addr;
        // On a history whose read there was in another state (both logged)
        // n repeats nothing.
        if (repeats && !w.path.empty() && an.role == SatRole::Read && node.role == SatRole::Read &&
            an.op.value_written && node.op.value_written && an.op.value_written != node.op.value_written)
          ends = true;
        if (repeats || ends) break;
      } else if (an.role == SatRole::Write) {
        w.stores.push_back(w.a);
      } else if (an.role != SatRole::Other) {  // start, yield, fence go on
        ends = true;
        break;
      }
      if (!up(w, w.a)) return;  // weaker: left unencoded
    }
    if (!repeats || ends) continue;
    std::vector<int> woken{-x(n)};
    for (int l : w.path) woken.push_back(-l);
    for (uint32_t s : w.stores)
      woken.push_back(-(tso_ && nodes[s].buffered ? tso_->unchanged(s) : unchanged(s)));  // tso: the thread's view
    auto wake = [&](uint32_t k, uint32_t wr, uint64_t key, int writes) {
      uint32_t seen = tso_ ? tso_->vis(wr) : wr;  // tso: a store wakes when it reaches memory
      int after = order(k, seen), before = order(seen, n);
      if (after == 0 || before == 0) return;
      auto [it, fresh] = woke_.try_emplace({n, k, wr, key}, 0);
      if (fresh) it->second = solver_.new_var();
      int z = it->second;
      clause({-z, writes});
      clause({-z, after});
      clause({-z, before});
      woken.push_back(z);
    };
    for (uint32_t k : w.window)
      for (uint32_t wr : g_.locations()[nodes[k].loc].writers) {
        if (wr == k || wr == n) continue;
        if (nodes[wr].role != SatRole::Rmw) {
          wake(k, wr, UINT64_MAX, writes_lit(wr));
          continue;
        }
        // Only one that changed memory wakes a spinner (a failed CAS does not).
        for (const SatEdge& e : nodes[wr].edges)
          if (e.written != e.key) wake(k, wr, e.key, val(wr, e.key));
      }
    if (w.path.empty()) {
      grow({2, n}, woken);
    } else {
      auto [it, fresh] = spin_histories_.try_emplace({n, w.nodes}, uint32_t(spin_histories_.size()));
      grow({-1 - int(it->second), n}, woken);
    }
  }
}

int SatEncoder::over(uint32_t w, uint32_t s) {
  auto [it, fresh] = over_.try_emplace(uint64_t(w) << 32 | s, 0);
  if (fresh) it->second = solver_.new_var();
  return it->second;
}

int SatEncoder::unchanged(uint32_t w) {
  auto [it, fresh] = unchanged_.try_emplace(w, 0);
  if (fresh) it->second = solver_.new_var();
  int u = it->second;
  if (!unchanged_this_round_.insert(w).second) return u;
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[w];
  const SatLocation& loc = g_.locations()[node.loc];
  uint64_t value = SatEventGraph::written_value(node.op);
  // As encode_read, with "w overwrites the value from s" for "n reads from
  // s", and u for the value read being w's own.
  auto& covered = over_covered_[w];
  auto fresh_c = [&](uint32_t c) { return !covered.count(c); };
  std::vector<int> some{-x(w)};
  {
    // An initial value never read is unknown: the store is taken to change it.
    int p = over(w, kSatNone);
    some.push_back(p);
    clause({-p, x(w)});
    if (loc.init && *loc.init == value) clause({-p, u});
    for (uint32_t c : loc.writers)
      if (c != w && fresh_c(c)) clause({-p, -writes_lit(c), -order(tso_ ? tso_->vis(c) : c, w)});  // tso: vis
  }
  for (uint32_t s : loc.writers) {
    if (s == w || !nodes[s].known) continue;
    if (nodes[s].instance == node.instance && !g_.before_in_thread(s, w)) continue;
    int p = over(w, s);
    some.push_back(p);
    // What a read-modify-write writes grows with the values it read.
    if (fresh_c(s) || nodes[s].role == SatRole::Rmw)
      for (auto [v, lit] : written_values(s))
        if (v == value) clause({-p, -lit, u});
    if (!fresh_c(s)) {
      if (!lazy_between_)
        for (uint32_t c : loc.writers)
          if (c != w && c != s && fresh_c(c)) between(w, s, c, p);
      continue;
    }
    clause({-p, x(w)});
    clause({-p, writes_lit(s)});
    clause({-p, order(tso_ ? tso_->vis(s) : s, w)});  // tso: vis
    if (lazy_between_) {
      auto& list = over_sources_[w];
      if (std::find(list.begin(), list.end(), std::make_pair(s, p)) == list.end()) list.emplace_back(s, p);
      continue;
    }
    for (uint32_t c : loc.writers)
      if (c != w && c != s) between(w, s, c, p);
  }
  for (uint32_t c : loc.writers) covered.insert(c);
  grow({3, w}, some);
  return u;
}

bool SatEncoder::encode(const std::function<bool()>& stop) {
  const auto& nodes = g_.nodes();
  // A merge may have put older nodes of the thread before the node merged
  // into and what follows it (SatEventGraph.h): writers that were on
  // another history are now in theirs, so their reads and stores are
  // encoded again over every writer (clause() and grow() add only what is
  // new).
  // A writer below the node merged into may now also follow an older writer
  // of its thread that was on another history: a read of another thread
  // encoded before had no "not in between" clause for the pair (order was
  // 0, "never both run"), so the writer is fresh again for every read and
  // overwriting store of its location.
  const auto& merged = g_.merged_into();
  for (; merges_seen_ < merged.size(); ++merges_seen_)
    for (uint32_t d : g_.descendants(merged[merges_seen_], nullptr)) {
      covered_.erase(d);
      over_covered_.erase(d);
      if (tso_) tso_->forget(d);  // tso:
      const SatNode& dn = nodes[d];
      if (!dn.known || !dn.writes() || dn.loc == kSatNone) continue;
      const SatLocation& loc = g_.locations()[dn.loc];
      for (uint32_t n : loc.readers) {
        if (auto it = covered_.find(n); it != covered_.end()) it->second.erase(d);
        if (tso_) tso_->forget(n, d);  // tso:
      }
      for (uint32_t w : loc.writers)
        if (auto it = over_covered_.find(w); it != over_covered_.end()) it->second.erase(d);
    }
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    const SatNode& node = nodes[n];
    if (!node.known) {
      // Forgotten (its history turned out to be a spin back to an earlier node).
      if (n < x_.size() && x_[n]) clause({-x_[n]});
      continue;
    }
    // Large graphs take long to encode: Ctrl-C and the time limit are polled.
    if (stop && stop()) return false;
    if (node.parent != kSatNone) {
      // It runs after one of its parents, by the edge to it.
      std::vector<int> in{-x(n)};
      for (uint32_t q : node.parents) {
        const SatNode& p = nodes[q];
        int via = x(q);
        if (p.reads())
          for (const SatEdge& e : p.edges)
            if (e.child == n) via = val(q, e.key);
        in.push_back(via);
      }
      // A node other histories may still reach (SatEventGraph::mergeable):
      // its parents are a growing disjunction.
      if (g_.mergeable(n))
        grow({4, n}, in);
      else
        clause(in);
    } else if (g_.instances()[node.instance].creator != kSatNone) {
      clause({-x(n), x(g_.instances()[node.instance].creator)});
    }
    if (node.reads()) {
      for (uint64_t k : node.spin_keys) clause({-val(n, k)});
      if (!(tso_ ? tso_->encode_read(n, stop) : encode_read(n, stop))) return false;  // tso:
    }
    if (tso_) tso_->encode_node(n);  // tso: flushes and drains
    if (node.role == SatRole::Read || node.role == SatRole::Rmw) encode_spin(n);
    if (node.role == SatRole::Create && node.target != kSatNone)
      for (uint32_t m : g_.instances()[node.target].nodes) clause({order(n, m)});
    if (node.role == SatRole::Join) {
      std::vector<int> exits{-x(n)};
      for (uint32_t m : g_.instances()[node.target].nodes) {
        clause({order(m, n)});
        if (nodes[m].role == SatRole::Exit) exits.push_back(x(m));
      }
      grow({1, n}, exits);
    }
    if (node.role == SatRole::ProcessExit)
      for (uint32_t m = 0; m < nodes.size(); ++m)
        if (nodes[m].known && nodes[m].instance != node.instance) clause({-x(n), -x(m), order(m, n)});
  }
  // Transitivity between two thread instances, eagerly, over the nodes
  // ordered against the other instance (SatTransitivity.h); only cycles
  // through three or more instances are left to the lazy refinement in
  // solve(). The flush windows (tso) use who is ordered against whom and
  // order a few more pairs, so the chains are read again after them.
  if (encoded_.size() < nodes.size()) encoded_.resize(nodes.size(), 0);
  if (!lazy_order_) {
    transitivity_.refresh();
    if (tso_) {
      tso_->encode_windows(encoded_, transitivity_);  // tso:
      transitivity_.refresh();
    }
    if (!transitivity_.encode(stop)) return false;
  }
  for (uint32_t n = 0; n < nodes.size(); ++n) encoded_[n] = nodes[n].known;
  return true;
}

void SatEncoder::collect_goals() {
  const auto& nodes = g_.nodes();
  const auto& locs = g_.locations();
  // Per location, what its writers may write (and its initial value).
  std::vector<std::vector<uint64_t>> written(locs.size());
  for (uint32_t l = 0; l < locs.size(); ++l) {
    auto& w = written[l];
    if (locs[l].init) w.push_back(*locs[l].init);
    for (uint32_t s : locs[l].writers)
      for (auto [v, lit] : written_values(s)) w.push_back(v);
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
  }
  goal_.assign(nodes.size(), {});
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    const SatNode& node = nodes[n];
    if (!node.known || node.role == SatRole::Flush) continue;  // tso: a flush is no goal
    // Only seen parked: running it at all is new.
    if (node.edges.empty()) {
      goal_[n].push_back(x(n));
      continue;
    }
    if (!node.reads() || node.role == SatRole::Lock) continue;
    if (!locs[node.loc].init) goal_[n].push_back(src(n, kSatNone));
    for (uint64_t v : written[node.loc])
      if (!node.edge(v) && !node.spins_on(v)) goal_[n].push_back(val(n, v));
  }
}

void SatEncoder::encode_values() {
  const auto& nodes = g_.nodes();
  // A read reads one value, and only when it runs (values read are made
  // variables as the clauses and the goals needed them).
  amo_done_.resize(val_.size(), 0);
  for (uint32_t n = 0; n < val_.size(); ++n) {
    if (!nodes[n].known) continue;
    for (size_t j = amo_done_[n]; j < val_[n].size(); ++j) {
      clause({-val_[n][j].second, x(n)});
      for (size_t i = 0; i < j; ++i) clause({-val_[n][i].second, -val_[n][j].second});
    }
    amo_done_[n] = val_[n].size();
  }
}

uint32_t SatEncoder::prove_exclusions(const std::function<bool()>& stop) {
  // Per call budgets: a lemma whose shallower lemmas are clauses is a few
  // conflicts; a candidate that is no lemma is cut, not searched for.
  constexpr int64_t kLemmaConflicts = 2000;
  const auto& nodes = g_.nodes();
  auto changes = [](const SatEdge& e) { return e.written != e.key; };
  struct Candidate {
    std::tuple<uint32_t, uint32_t, uint32_t, uint64_t> key;
    uint32_t rank;
    uint64_t acquired;  // the value a read to change the location
  };
  std::vector<Candidate> candidates;
  for (const SatLocation& loc : g_.locations()) {
    std::vector<uint32_t> rmws;
    for (uint32_t w : loc.writers)
      if (nodes[w].known && nodes[w].role == SatRole::Rmw) rmws.push_back(w);
    for (uint32_t a : rmws)
      for (const SatEdge& e : nodes[a].edges) {
        if (!changes(e) || e.child >= nodes.size() || !nodes[e.child].known) continue;
        // The first writes of the location on each path below: where the
        // section ends (a release).
        std::vector<uint32_t> ends, todo{e.child};
        std::unordered_set<uint32_t> seen{e.child};  // merged histories meet
        while (!todo.empty()) {
          uint32_t n = todo.back();
          todo.pop_back();
          if (nodes[n].writes() && nodes[n].loc == nodes[a].loc) {
            ends.push_back(n);
            continue;
          }
          for (const SatEdge& c : nodes[n].edges)
            if (c.child < nodes.size() && nodes[c.child].known && seen.insert(c.child).second) todo.push_back(c.child);
        }
        for (uint32_t r : ends)
          for (uint32_t b : rmws) {
            if (nodes[b].instance == nodes[a].instance) continue;
            for (const SatEdge& f : nodes[b].edges)
              if (changes(f) && f.child < nodes.size() && nodes[f.child].known)
                candidates.push_back({{a, r, b, f.key}, nodes[a].depth + nodes[b].depth, e.key});
          }
      }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& l, const Candidate& r) { return l.rank < r.rank; });
  std::vector<int> open_ends;
  std::unordered_set<int> current;
  for (const auto& [key, chain] : chains_) open_ends.push_back(-chain.end), current.insert(chain.end);
  uint32_t proven = 0;
  // First "b does not change the location between a and r", then, with
  // those as clauses, "b changing it after a means r ran" (a section whose
  // thread stopped, at a goal, never ends).
  for (bool ended : {false, true})
    for (const Candidate& c : candidates) {
      Exclusion key = std::tuple_cat(c.key, std::make_tuple(ended));
      if (not_lemmas_.count(key)) continue;
      if (auto it = lemmas_.find(key); it != lemmas_.end()) {
        bool valid = true;
        for (int end : it->second) valid = valid && current.count(end);
        if (valid) continue;
      }
      if (stop && stop()) return proven;
      auto [a, r, b, k] = c.key;
      std::vector<int> lemma = ended ? std::vector<int>{-val(a, c.acquired), -order(a, b), -val(b, k), x(r)}
                                     : std::vector<int>{-x(r), -order(a, b), -order(b, r), -val(b, k)};
      if (std::any_of(lemma.begin(), lemma.end(), [](int l) { return l == kTrue || l == kFalse; })) continue;
      std::vector<int> assumptions = open_ends;
      for (int l : lemma) assumptions.push_back(-l);
      // A counterexample must be one: acyclic, each read after its source
      // with no writer between (the lazy clauses it breaks are added).
      SatAnswer scratch;
      SatSolver::Result result = solve_acyclic(assumptions, kLemmaConflicts, stop, scratch, true);
      if (result == SatSolver::Result::Sat) not_lemmas_.insert(key);
      if (result != SatSolver::Result::Unsat) continue;
      std::vector<int> used;
      for (int end : open_ends)
        if (solver_.failed(end)) used.push_back(-end);
      lemma.insert(lemma.end(), used.begin(), used.end());
      clause(lemma);
      lemmas_[key] = used;
      ++proven;
    }
  return proven;
}

SatAnswer SatEncoder::solve(const std::function<bool()>& stop) {
  SatAnswer answer;
  auto t0 = std::chrono::steady_clock::now();
  added_this_round_ = 0;
  unchanged_this_round_.clear();
  // The last round's part no longer holds.
  if (act_) solver_.add_clause(std::vector<int>{-act_}), ++added_this_round_;
  if (!encode(stop)) {
    answer.result = SatSolver::Result::Stopped;
    return answer;
  }
  collect_goals();
  encode_values();
  // The round's part: some goal, and every growing disjunction as it is now.
  act_ = solver_.new_var();
  std::vector<int> any_goal{-act_};
  for (const auto& lits : goal_) {
    any_goal.insert(any_goal.end(), lits.begin(), lits.end());
    answer.goals += !lits.empty();
  }
  solver_.add_clause(any_goal);
  for (const auto& [key, chain] : chains_) solver_.add_clause(std::vector<int>{-act_, -chain.end});
  added_this_round_ += 1 + chains_.size();
  answer.encode_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  answer.vars = solver_.vars();
  answer.clauses = solver_.clauses();
  answer.added = added_this_round_;
  if (answer.goals == 0) {
    answer.result = SatSolver::Result::Unsat;
    return answer;
  }
  // The shallowest goals first (SatGoalTiers.h), each tier within a budget.
  answer.result = solve_tiers(stop, answer);
  if (answer.result == SatSolver::Result::Sat || answer.result == SatSolver::Result::Stopped) {
    answer.vars = solver_.vars();
    answer.clauses = solver_.clauses();
    answer.added = added_this_round_;
    return answer;
  }
  // Some goal, as one call; past its budget, the hard round's way.
  constexpr int64_t kRoundConflicts = 5000;
  int assumption[] = {act_};
  if (!hard_) {
    answer.result = solve_acyclic(assumption, kRoundConflicts, stop, answer);
    if (answer.result != SatSolver::Result::Unknown) return answer;
    hard_ = true;
  }
  answer.lemmas = prove_exclusions(stop);
  encode_values();  // over any value variable the lemmas made
  if (lemmas_.empty()) {
    // No lock to help with: the one call, as long as it takes (one goal at
    // a time is slower there: the bakery's 2 x 2 took 3x as long).
    hard_ = false;
    answer.result = solve_acyclic(assumption, -1, stop, answer);
  } else {
    answer.result = solve_each(stop, answer);
  }
  answer.vars = solver_.vars();
  answer.clauses = solver_.clauses();
  answer.added = added_this_round_;
  return answer;
}

SatSolver::Result SatEncoder::solve_tiers(const std::function<bool()>& stop, SatAnswer& answer) {
  // A tier's goals are few and near the threads' starts: cheap to reach or
  // to refute; past the budget the round asks for every goal as before.
  constexpr int64_t kTierConflicts = 2000;
  // The newest history is followed at most kFreshRun rounds in a row, then
  // one round goes without: a history that keeps opening new ones (a
  // trylock retry loop, each failure a new history) would hold the search
  // (bug_trylock_yield_account: found in 4 executions without the newest
  // first, 8 with, not in 126 when always followed).
  constexpr uint32_t kFreshRun = 6;
  uint32_t fresh_from = fresh_from_;
  if (++fresh_run_ > kFreshRun) fresh_run_ = 0, fresh_from = uint32_t(g_.nodes().size());
  SatSolver::Result result = SatSolver::Result::Unknown;
  for (const SatGoalTier& tier : sat_goal_tiers(g_, goal_, fresh_from)) {
    int t = solver_.new_var();
    std::vector<int> some{-t};
    some.insert(some.end(), tier.goals.begin(), tier.goals.end());
    solver_.add_clause(some);
    int assumptions[] = {act_, t};
    result = solve_acyclic(assumptions, kTierConflicts, stop, answer);
    // Retired at once: the tier's clause holds only under t (the model, and
    // answer.order, were read before).
    solver_.add_clause(std::vector<int>{-t});
    added_this_round_ += 2;
    if (result == SatSolver::Result::Sat || result == SatSolver::Result::Stopped) break;
  }
  fresh_from_ = uint32_t(g_.nodes().size());
  return result;
}

SatSolver::Result SatEncoder::solve_each(const std::function<bool()>& stop, SatAnswer& answer) {
  std::vector<int> open_ends;
  std::unordered_set<int> current;
  for (const auto& [key, chain] : chains_) open_ends.push_back(-chain.end), current.insert(chain.end);
  for (const auto& lits : goal_)
    for (int goal : lits) {
      if (auto it = refuted_.find(goal); it != refuted_.end()) {
        bool valid = true;
        for (int end : it->second) valid = valid && current.count(end);
        if (valid) continue;
      }
      std::vector<int> assumptions = open_ends;
      assumptions.push_back(goal);
      SatSolver::Result result = solve_acyclic(assumptions, -1, stop, answer);
      if (result != SatSolver::Result::Unsat) return result;
      std::vector<int> used;
      for (int end : open_ends)
        if (solver_.failed(end)) used.push_back(-end);
      refuted_[goal] = std::move(used);
    }
  return SatSolver::Result::Unsat;
}

SatSolver::Result SatEncoder::solve_acyclic(std::span<const int> assumptions, int64_t conflicts,
                                            const std::function<bool()>& stop, SatAnswer& answer, bool whole) {
  const auto& nodes = g_.nodes();
  for (;;) {
    if (conflicts >= 0) solver_.limit_conflicts(conflicts);
    SatSolver::Result result = solver_.solve(assumptions, stop);
    if (result != SatSolver::Result::Sat) return result;
    // The nodes the model runs, and its order on them.
    std::vector<char> runs(nodes.size(), 0);
    std::vector<uint32_t> ran;
    for (uint32_t n = 0; n < nodes.size() && n < x_.size(); ++n)
      if (nodes[n].known && x_[n] && solver_.value(x_[n])) runs[n] = 1, ran.push_back(n);
    std::vector<std::vector<uint32_t>> succ(nodes.size()), pred(nodes.size());
    auto edge = [&](uint32_t a, uint32_t b) { succ[a].push_back(b), pred[b].push_back(a); };
    for (uint32_t n : ran)
      for (uint32_t p : nodes[n].parents)
        if (runs[p]) edge(p, n);  // one: what runs of an instance is one path
    for (const auto& [pair, var] : o_) {
      uint32_t a = uint32_t(pair >> 32), b = uint32_t(pair);
      if (runs[a] && runs[b]) {
        if (solver_.value(var))
          edge(a, b);
        else
          edge(b, a);
      }
    }
    std::vector<uint32_t> indeg(nodes.size(), 0), ready, sorted;
    for (uint32_t n : ran) indeg[n] = uint32_t(pred[n].size());
    for (uint32_t n : ran)
      if (indeg[n] == 0) ready.push_back(n);
    uint32_t last_instance = kSatNone;
    while (!ready.empty()) {
      // Stay with the thread that ran last when it can go on: fewer switches.
      size_t pick = 0;
      for (size_t i = 0; i < ready.size(); ++i)
        if (nodes[ready[i]].instance == last_instance) pick = i;
      uint32_t n = ready[pick];
      ready.erase(ready.begin() + long(pick));
      sorted.push_back(n);
      last_instance = nodes[n].instance;
      for (uint32_t m : succ[n])
        if (--indeg[m] == 0) ready.push_back(m);
    }
    if (sorted.size() == ran.size()) {
      // Lazy "between": the order must give each read its source's value,
      // up to the first goal (where a schedule stops) unless asked for all.
      std::vector<uint32_t> pos(nodes.size(), 0);
      uint32_t upto = uint32_t(sorted.size());
      for (uint32_t i = 0; i < sorted.size(); ++i) {
        pos[sorted[i]] = i;
        if (!whole && upto == sorted.size())
          for (int g : goal_[sorted[i]])
            if (solver_.value(g)) upto = i;
      }
      if (uint32_t k = refine_between(runs, pos, upto)) {
        answer.between_added += k;
        continue;
      }
      for (uint32_t n : sorted) {
        SatStep step;
        step.node = n;
        for (int g : goal_[n]) step.goal = step.goal || solver_.value(g);
        if (nodes[n].reads())
          for (const SatEdge& e : nodes[n].edges)
            if (solver_.value(val(n, e.key))) step.key = e.key;
        answer.order.push_back(step);
        if (step.goal) break;
      }
      return result;
    }
    // Cycles among the nodes left, several per model (each solver call
    // costs more than finding one): walk back along edges from a node
    // left, forbid the cycle found, take one of its edges between threads
    // out of the model's graph and go on with what that frees.
    constexpr uint32_t kCyclesPerModel = 64;
    auto drop = [](std::vector<uint32_t>& v, uint32_t x) {
      auto it = std::find(v.begin(), v.end(), x);
      if (it != v.end()) v.erase(it);
    };
    size_t scan = 0;
    for (uint32_t found = 0; found < kCyclesPerModel; ++found) {
      while (scan < ran.size() && indeg[ran[scan]] == 0) ++scan;
      if (scan == ran.size()) break;
      std::vector<int> seen(nodes.size(), -1);
      std::vector<uint32_t> walk;
      uint32_t n = ran[scan];
      while (seen[n] < 0) {
        seen[n] = int(walk.size());
        walk.push_back(n);
        uint32_t back = kSatNone;
        for (uint32_t p : pred[n])
          if (indeg[p] > 0) back = p;
        n = back;
      }
      // walk[seen[n]..] is the cycle backwards: each is preceded by the next.
      // No execution has it, whatever the graph: forbidden for good.
      std::vector<std::pair<uint32_t, uint32_t>> across;  // its edges between threads
      for (size_t i = size_t(seen[n]); i < walk.size(); ++i) {
        uint32_t later = walk[i], earlier = i + 1 < walk.size() ? walk[i + 1] : walk[size_t(seen[n])];
        if (nodes[earlier].instance != nodes[later].instance) across.emplace_back(earlier, later);
      }
      std::vector<int> lits;
      for (auto [earlier, later] : across) lits.push_back(-order(earlier, later));
      uint32_t cut_from = across.empty() ? kSatNone : across.front().first;
      uint32_t cut_to = across.empty() ? kSatNone : across.front().second;
      clause(lits);
      ++answer.refinements;
      if (cut_from == kSatNone) break;  // (a cycle within one thread: none, the trie is acyclic)
      drop(pred[cut_to], cut_from);
      drop(succ[cut_from], cut_to);
      if (--indeg[cut_to] == 0) {
        std::vector<uint32_t> freed{cut_to};
        while (!freed.empty()) {
          uint32_t m = freed.back();
          freed.pop_back();
          for (uint32_t k : succ[m])
            if (--indeg[k] == 0) freed.push_back(k);
        }
      }
    }
  }
}

}  // namespace ctrl
