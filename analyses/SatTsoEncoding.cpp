#include "SatTsoEncoding.h"

#include <algorithm>

#include "SatEncoder.h"

namespace ctrl {

uint32_t SatTsoEncoding::vis(uint32_t s) const {
  const SatNode& n = g_.nodes()[s];
  return n.buffered && n.flush != kSatNone ? n.flush : s;
}

uint32_t SatTsoEncoding::last_own_store(uint32_t n) const {
  const auto& nodes = g_.nodes();
  for (uint32_t c = n, p = nodes[n].parent; p != kSatNone; c = p, p = nodes[p].parent) {
    if (nodes[c].parents.size() > 1) return kSatNone;  // merged: every history drained just before
    if (nodes[p].loc == nodes[n].loc && nodes[p].writes()) return p;
    if (nodes[p].drains) return kSatNone;
  }
  return kSatNone;
}

uint32_t SatTsoEncoding::last_buffered(uint32_t n) const {
  const auto& nodes = g_.nodes();
  for (uint32_t c = n, p = nodes[n].parent; p != kSatNone; c = p, p = nodes[p].parent) {
    if (nodes[c].parents.size() > 1) return kSatNone;
    if (nodes[p].buffered) return p;
    if (nodes[p].drains) return kSatNone;
  }
  return kSatNone;
}

void SatTsoEncoding::encode_node(uint32_t n) {
  const SatNode& node = g_.nodes()[n];
  if (node.buffered && node.flush != kSatNone) {
    uint32_t f = node.flush;
    e_.clause({-e_.x(n), e_.x(f)});
    e_.clause({-e_.x(f), e_.x(n)});
    e_.clause({-e_.x(n), e_.order(n, f)});
  }
  if (node.drains) {
    uint32_t last = last_buffered(n);
    if (last != kSatNone) e_.clause({-e_.x(n), -e_.x(last), e_.order(vis(last), n)});
  }
}

void SatTsoEncoding::between(uint32_t n, uint32_t s, uint32_t c, int r) {
  // kTrue/kFalse within one instance, 0 on different paths (clause() drops
  // the clause then: they never both run).
  e_.clause({-r, -e_.writes_lit(c), -e_.order(vis(s), vis(c)), -e_.order(vis(c), n)});
}

void SatTsoEncoding::encode_windows(const std::vector<char>& encoded, const SatTransitivity& ordered) {
  const auto& nodes = g_.nodes();
  const auto& instances = g_.instances();
  auto old = [&](uint32_t n) { return n < encoded.size() && encoded[n]; };
  std::vector<uint32_t> drains;
  for (uint32_t f = 0; f < nodes.size(); ++f) {
    const SatNode& fn = nodes[f];
    if (fn.role != SatRole::Flush || fn.store == kSatNone || !fn.known) continue;
    const uint32_t w = fn.store, owner = nodes[w].instance;
    // The first drains below the store, on every path.
    auto stop = [&](uint32_t n) { return n != w && (!nodes[n].known || nodes[n].drains); };
    drains.clear();
    for (uint32_t n : g_.descendants(w, stop))
      if (n != w && nodes[n].known && nodes[n].drains) drains.push_back(n);
    const bool new_drain = std::any_of(drains.begin(), drains.end(), [&](uint32_t d) { return !old(d); });
    for (uint32_t j = 0; j < instances.size(); ++j) {
      if (j == owner || j == fn.instance || !ordered.ordered_with(f, j)) continue;
      // "f before a" means "store before a", and so before a for the last
      // node at or above the store ordered against j (one that runs
      // whenever the store does: not above a merge).
      uint32_t p = w;
      while (p != kSatNone && !ordered.ordered_with(p, j)) p = nodes[p].parents.size() > 1 ? kSatNone : nodes[p].parent;
      for (uint32_t a : ordered.ordered(j, fn.instance)) {
        bool first = windows_.insert(uint64_t(f) << 32 | a).second;
        if (!first && !new_drain) continue;
        if (first && p != kSatNone) e_.clause({-e_.order(f, a), e_.order(p, a)});
        for (uint32_t d : drains)
          if (first || !old(d)) e_.clause({-e_.order(a, f), -e_.x(d), e_.order(a, d)});
      }
    }
  }
}

bool SatTsoEncoding::encode_read(uint32_t n, const std::function<bool()>& stop) {
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[n];
  const SatLocation& loc = g_.locations()[node.loc];
  auto& covered = covered_[n];
  auto fresh = [&](uint32_t w) { return !covered.count(w); };
  // Writers whose store may reach memory before n: not n's own later or
  // other-path stores.
  auto candidate = [&](uint32_t c) {
    if (c == n || !nodes[c].known) return false;
    return nodes[c].instance != node.instance || g_.before_in_thread(c, n);
  };
  // A lock waits for a free mutex: it never reads a held one.
  auto readable = [&](uint32_t s) { return node.role != SatRole::Lock || nodes[s].role == SatRole::Unlock; };
  const uint32_t own = last_own_store(n);
  std::vector<int> any{-e_.x(n)};
  auto values = [&](uint32_t s, int r) {
    // What a read-modify-write writes grows with the values it read.
    if (fresh(s) || nodes[s].role == SatRole::Rmw)
      for (auto [w, lit] : e_.written_values(s)) e_.clause({-r, -lit, e_.val(n, w)});
  };
  if (own == kSatNone) {
    // Memory's initial value: nothing reached memory before n. (With a
    // store of its own before it, n reads that store or something later.)
    int r = e_.src(n, kSatNone);
    any.push_back(r);
    e_.clause({-r, e_.x(n)});
    if (loc.init) e_.clause({-r, e_.val(n, *loc.init)});
    for (uint32_t c : loc.writers)
      if (candidate(c) && fresh(c)) e_.clause({-r, -e_.writes_lit(c), -e_.order(vis(c), n)});
  } else {
    // Never the initial value (a goal while that value is unknown). Each
    // clause about `own` holds where own runs: a later merge may make it
    // one of several histories' (last_own_store()).
    e_.clause({-e_.src(n, kSatNone), -e_.x(own)});
    e_.clause({-e_.src(n, kSatNone), e_.x(n)});
  }
  if (own != kSatNone && readable(own)) {
    // Its own last store: forwarded while still buffered (its flush after
    // n), else from memory with nothing written there since its flush.
    int r = e_.src(n, own);
    any.push_back(r);
    e_.clause({-r, e_.x(n)});
    e_.clause({-r, e_.x(own)});
    values(own, r);
    for (uint32_t c : loc.writers) {
      if (stop && stop()) return false;
      if (c == own || !candidate(c) || (!fresh(own) && !fresh(c))) continue;
      e_.clause({-r, -e_.order(vis(own), n), -e_.writes_lit(c), -e_.order(vis(own), vis(c)), -e_.order(vis(c), n)});
    }
  }
  for (uint32_t s : loc.writers) {
    if (stop && stop()) return false;
    if (s == own || !candidate(s) || (own != kSatNone && nodes[s].instance == node.instance) || !readable(s)) continue;
    // Another thread's store, or (past a drain) its own, from memory.
    int r = e_.src(n, s);
    any.push_back(r);
    values(s, r);
    if (!fresh(s)) {
      for (uint32_t c : loc.writers)
        if (c != s && candidate(c) && fresh(c)) between(n, s, c, r);
      continue;
    }
    e_.clause({-r, e_.x(n)});
    e_.clause({-r, e_.writes_lit(s)});
    e_.clause({-r, e_.order(vis(s), n)});
    // Not forwarded: its own last store has reached memory.
    if (own != kSatNone) e_.clause({-r, -e_.x(own), e_.order(vis(own), n)});
    for (uint32_t c : loc.writers)
      if (c != s && candidate(c)) between(n, s, c, r);
  }
  for (uint32_t w : loc.writers) covered.insert(w);
  e_.grow({0, n}, any);
  return true;
}

int SatTsoEncoding::unchanged(uint32_t w) {
  auto [it, fresh_u] = e_.unchanged_.try_emplace(w, 0);
  if (fresh_u) it->second = e_.solver_.new_var();
  const int u = it->second;
  if (!e_.unchanged_this_round_.insert(w).second) return u;
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[w];
  const SatLocation& loc = g_.locations()[node.loc];
  const uint64_t value = SatEventGraph::written_value(node.op);
  auto& covered = e_.over_covered_[w];
  auto fresh = [&](uint32_t c) { return !covered.count(c); };
  auto candidate = [&](uint32_t c) {
    if (c == w || !nodes[c].known) return false;
    return nodes[c].instance != node.instance || g_.before_in_thread(c, w);
  };
  // The view's value is w's own: u.
  auto same = [&](uint32_t s, int p) {
    if (fresh(s) || nodes[s].role == SatRole::Rmw)
      for (auto [v, lit] : e_.written_values(s))
        if (v == value) e_.clause({-p, -lit, u});
  };
  const uint32_t own = last_own_store(w);
  std::vector<int> some{-e_.x(w)};
  if (own == kSatNone) {
    // An initial value never read is unknown: the store is taken to change it.
    int p = e_.over(w, kSatNone);
    some.push_back(p);
    e_.clause({-p, e_.x(w)});
    if (loc.init && *loc.init == value) e_.clause({-p, u});
    for (uint32_t c : loc.writers)
      if (candidate(c) && fresh(c)) e_.clause({-p, -e_.writes_lit(c), -e_.order(vis(c), w)});
  } else {
    e_.clause({-e_.over(w, kSatNone), -e_.x(own)});
    e_.clause({-e_.over(w, kSatNone), e_.x(w)});
    int p = e_.over(w, own);
    some.push_back(p);
    e_.clause({-p, e_.x(w)});
    e_.clause({-p, e_.x(own)});
    same(own, p);
    for (uint32_t c : loc.writers) {
      if (c == own || !candidate(c) || (!fresh(own) && !fresh(c))) continue;
      e_.clause({-p, -e_.order(vis(own), w), -e_.writes_lit(c), -e_.order(vis(own), vis(c)), -e_.order(vis(c), w)});
    }
  }
  for (uint32_t s : loc.writers) {
    if (s == own || !candidate(s) || (own != kSatNone && nodes[s].instance == node.instance)) continue;
    int p = e_.over(w, s);
    some.push_back(p);
    same(s, p);
    if (!fresh(s)) {
      for (uint32_t c : loc.writers)
        if (c != s && candidate(c) && fresh(c)) between(w, s, c, p);
      continue;
    }
    e_.clause({-p, e_.x(w)});
    e_.clause({-p, e_.writes_lit(s)});
    e_.clause({-p, e_.order(vis(s), w)});
    if (own != kSatNone) e_.clause({-p, -e_.x(own), e_.order(vis(own), w)});
    for (uint32_t c : loc.writers)
      if (c != s && candidate(c)) between(w, s, c, p);
  }
  for (uint32_t c : loc.writers) covered.insert(c);
  e_.grow({3, w}, some);
  return u;
}

}  // namespace ctrl
