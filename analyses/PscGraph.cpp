#include "PscGraph.h"

#include <algorithm>

#include "C11Consistency.h"

namespace ctrl {

namespace {

bool memory_event(const GraphEvent& e) { return e.kind != GraphKind::Other; }
bool on_location(const GraphEvent& e) { return e.is_read() || e.is_write(); }
bool same_loc(const GraphEvent& a, const GraphEvent& b) { return on_location(a) && on_location(b) && a.loc == b.loc; }

// The first element of the po-ordered list whose key is above `bound`
// (keys never decrease along po), or kNone.
template <class Key>
uint32_t first_above(const std::vector<uint32_t>& list, uint32_t bound, Key key) {
  auto it = std::partition_point(list.begin(), list.end(), [&](uint32_t b) { return key(b) <= bound; });
  return it == list.end() ? kNone : *it;
}

}  // namespace

PscGraph::PscGraph(const ExecutionGraph& g, const HappensBefore& hb) : g_(g), hb_(hb) {
  size_t n = g.size();
  sc_.assign(n, 0);
  next_sc_po_.assign(n, kNone);
  first_after_.assign(n, kNone);
  last_before_.assign(n, kNone);
  mo_pos_.assign(n, 0);
  sc_mo_idx_.assign(n, 0);
  for (uint32_t i = 0; i < n; i++) {
    const GraphEvent& e = g.at(i);
    sc_[i] = e.is_sc() && on_location(e);
    threads_ = std::max(threads_, e.thread + 1);
  }
  with_d_.resize(threads_);
  // Per thread, forwards: d (the last memory event, and the last one at
  // another location than it), the next SC event; backwards: c.
  std::vector<std::vector<uint32_t>> by_thread(threads_);
  for (uint32_t i = 0; i < n; i++)
    if (memory_event(g.at(i))) by_thread[g.at(i).thread].push_back(i);
  for (const auto& evs : by_thread) {
    uint32_t last = kNone, other = kNone, last_sc = kNone;
    for (uint32_t b : evs) {
      const GraphEvent& e = g.at(b);
      last_before_[b] = last == kNone ? kNone : (!same_loc(g.at(last), e) ? last : other);
      if (last == kNone || !same_loc(g.at(last), e)) other = last;
      last = b;
      if (!sc_[b]) continue;
      if (last_sc != kNone) next_sc_po_[last_sc] = b;
      last_sc = b;
      by_thread_loc_[{e.thread, e.loc}].push_back(b);
      if (last_before_[b] != kNone) with_d_[e.thread].push_back(b);
    }
    last = other = kNone;
    for (auto it = evs.rbegin(); it != evs.rend(); ++it) {
      const GraphEvent& e = g.at(*it);
      first_after_[*it] = last == kNone ? kNone : (!same_loc(g.at(last), e) ? last : other);
      if (last == kNone || !same_loc(g.at(last), e)) other = last;
      last = *it;
    }
  }
  for (const auto& [loc, order] : g.mo()) {
    LocationMo& m = mo_[loc];
    m.first_sc_from.assign(order.size() + 2, 0);
    for (uint32_t k = 0; k < order.size(); k++) {
      uint32_t w = order[k];
      if (w >= n) continue;
      mo_pos_[w] = k + 1;
      if (sc_[w]) {
        sc_mo_idx_[w] = uint32_t(m.sc_stores.size());
        m.sc_stores.push_back(w);
      }
    }
    // first_sc_from[p]: SC stores at mo positions below p come first.
    uint32_t count = uint32_t(m.sc_stores.size());
    for (size_t p = order.size() + 2; p-- > 0;) {
      if (p >= 1 && p - 1 < order.size() && order[p - 1] < n && sc_[order[p - 1]]) count = sc_mo_idx_[order[p - 1]];
      m.first_sc_from[p] = count;
    }
  }
}

uint32_t PscGraph::sc_store_from(uint64_t loc, size_t k, uint32_t limit, uint32_t skip) const {
  auto it = mo_.find(loc);
  if (it == mo_.end()) return kNone;
  const auto& stores = it->second.sc_stores;
  for (; k < stores.size(); k++)
    if (stores[k] < limit && stores[k] != skip) return stores[k];
  return kNone;
}

template <class F>
void PscGraph::successors(uint32_t x, uint32_t limit, F&& f) const {
  const GraphEvent& e = g_.at(x);
  auto edge = [&](uint32_t b) {
    if (b != kNone && b < limit && b != x) f(b);
  };
  edge(next_sc_po_[x]);
  uint32_t c = first_after_[x];
  for (uint32_t t = 0; t < threads_; t++) {
    if (t == e.thread) continue;
    // hb|loc
    auto same = by_thread_loc_.find({t, e.loc});
    if (same != by_thread_loc_.end())
      edge(first_above(same->second, e.index, [&](uint32_t b) { return hb_.clock(b, e.thread); }));
    // po|≠loc; hb; po|≠loc
    if (c != kNone && c < limit)
      edge(first_above(with_d_[t], g_.at(c).index, [&](uint32_t b) { return hb_.clock(last_before_[b], e.thread); }));
  }
  // mo, rb
  if (e.is_write()) edge(sc_store_from(e.loc, sc_mo_idx_[x] + 1, limit, x));
  if (e.is_read() && e.rf != kNone && (e.rf == kInit || e.rf < limit)) {
    auto it = mo_.find(e.loc);
    uint32_t p = e.rf == kInit ? 0 : mo_pos_[e.rf];
    if (it != mo_.end() && p + 1 < it->second.first_sc_from.size())
      edge(sc_store_from(e.loc, it->second.first_sc_from[p + 1], limit, x));
  }
}

bool PscGraph::acyclic(uint32_t limit) const {
  limit = std::min<uint32_t>(limit, uint32_t(g_.size()));
  // Iterative DFS, three colours: 0 new, 1 on the stack, 2 done.
  std::vector<uint8_t> colour(limit, 0);
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> stack;
  for (uint32_t root = 0; root < limit; root++) {
    if (!sc(root) || colour[root]) continue;
    auto push = [&](uint32_t x) {
      colour[x] = 1;
      std::vector<uint32_t> next;
      successors(x, limit, [&](uint32_t b) { next.push_back(b); });
      stack.emplace_back(x, std::move(next));
    };
    push(root);
    while (!stack.empty()) {
      auto& [x, next] = stack.back();
      if (next.empty()) {
        colour[x] = 2;
        stack.pop_back();
        continue;
      }
      uint32_t b = next.back();
      next.pop_back();
      if (colour[b] == 1) return false;
      if (colour[b] == 0) push(b);
    }
  }
  return true;
}

bool PscGraph::closes_cycle(const ExecutionGraph& cand, const std::vector<uint32_t>& clock_e) const {
  uint32_t i = uint32_t(cand.size() - 1);
  const GraphEvent& e = cand.at(i);
  auto clock_of_e = [&](uint32_t t) { return t < clock_e.size() ? clock_e[t] : 0u; };
  // e's d: the last memory event po-before it at another location.
  uint32_t d_e = kNone;
  for (uint32_t k = i; k-- > 0;) {
    const GraphEvent& p = g_.at(k);
    if (p.thread != e.thread || !memory_event(p)) continue;
    d_e = !same_loc(p, e) ? k : last_before_[k];
    break;
  }
  // mo positions in cand, at e's location.
  std::vector<uint32_t> order;
  if (const auto* o = cand.mo_of(e.loc)) order = *o;
  auto cand_pos = [&](uint32_t w) -> uint32_t {
    if (w == kInit) return 0;
    auto it = std::find(order.begin(), order.end(), w);
    return it == order.end() ? 0 : uint32_t(it - order.begin()) + 1;
  };
  uint32_t pos_e = e.is_write() ? cand_pos(i) : 0;
  std::vector<uint32_t> pos_of(i, 0);  // cand mo positions of e's location's stores
  for (uint32_t k = 0; k < order.size(); k++)
    if (order[k] < i) pos_of[order[k]] = k + 1;
  auto into_e = [&](uint32_t a) {
    const GraphEvent& x = g_.at(a);
    if (x.thread == e.thread) return true;                              // po
    if (same_loc(x, e) && clock_of_e(x.thread) > x.index) return true;  // hb|loc
    uint32_t c = first_after_[a];
    if (c != kNone && c < i && d_e != kNone && hb_.clock(d_e, x.thread) > g_.at(c).index) return true;
    if (!same_loc(x, e) || !e.is_write()) return false;
    if (x.is_write() && pos_of[a] < pos_e) return true;                                           // mo
    if (x.is_read() && x.rf != kNone && (x.rf == kInit ? 0 : pos_of[x.rf]) < pos_e) return true;  // rb
    return false;
  };
  // e's own edges, to the first SC store of the prefix after it (mo) or
  // after the store it reads (rb).
  std::vector<uint32_t> work;
  auto first_sc_after = [&](uint32_t from_pos) {
    for (uint32_t k = from_pos; k < order.size(); k++)
      if (order[k] < i && sc_[order[k]]) return order[k];
    return kNone;
  };
  if (e.is_write() && pos_e > 0) {
    uint32_t b = first_sc_after(pos_e);
    if (b != kNone) work.push_back(b);
  }
  if (e.is_read() && e.rf != kNone) {
    uint32_t b = first_sc_after(cand_pos(e.rf));
    if (b != kNone) work.push_back(b);
  }
  std::vector<uint8_t> seen(i, 0);
  for (uint32_t b : work) seen[b] = 1;
  while (!work.empty()) {
    uint32_t x = work.back();
    work.pop_back();
    if (into_e(x)) return true;
    successors(x, i, [&](uint32_t b) {
      if (!seen[b]) {
        seen[b] = 1;
        work.push_back(b);
      }
    });
  }
  return false;
}

}  // namespace ctrl
