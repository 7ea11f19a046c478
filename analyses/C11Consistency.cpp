#include "C11Consistency.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "BitRelation.h"
#include "PscGraph.h"

namespace ctrl {

namespace {

bool resolved(const GraphEvent& e) { return e.is_read() && e.rf != kNone; }
bool memory_event(const GraphEvent& e) { return e.kind != GraphKind::Other; }
bool on_location(const GraphEvent& e) { return e.is_read() || e.is_write(); }

// The steps of each thread, in po.
std::vector<std::vector<uint32_t>> threads_of(const ExecutionGraph& g) {
  std::vector<std::vector<uint32_t>> by_thread;
  for (uint32_t i = 0; i < g.size(); i++) {
    uint32_t t = g.at(i).thread;
    if (by_thread.size() <= t) by_thread.resize(t + 1);
    by_thread[t].push_back(i);
  }
  return by_thread;
}

// Position of each store in its location's mo (kInit: 0).
struct MoPositions {
  std::vector<uint32_t> pos;  // by step
  explicit MoPositions(const ExecutionGraph& g) : pos(g.size(), 0) {
    for (const auto& [loc, order] : g.mo())
      for (uint32_t k = 0; k < order.size(); k++)
        if (order[k] < pos.size()) pos[order[k]] = k + 1;
  }
  uint32_t of(uint32_t w) const { return w < pos.size() ? pos[w] : 0; }
};

// The release heads whose clocks flow into a read of store w: for w and
// each store up its chain of read-modify-writes, the po-latest release
// store of the same thread and location, or release fence, at or before it.
void release_heads(const ExecutionGraph& g, uint32_t w, std::vector<uint32_t>& out) {
  size_t n = g.size();
  for (size_t guard = 0; w != kInit && w != kNone && w < n && guard <= n; guard++) {
    const GraphEvent& s = g.at(w);
    uint32_t head = kNone;
    if (s.is_release() && s.atomic()) {
      head = w;
    } else {
      for (uint32_t k = w; k-- > 0;) {
        const GraphEvent& h = g.at(k);
        if (h.thread != s.thread) continue;
        bool release_fence = h.kind == GraphKind::Fence && h.is_release();
        bool release_store = h.is_write() && h.loc == s.loc && h.is_release() && h.atomic();
        if (release_fence || release_store) {
          head = k;
          break;
        }
      }
    }
    if (head != kNone) out.push_back(head);
    if (s.kind != GraphKind::Rmw || s.promise) break;
    w = s.rf;
  }
}

}  // namespace

std::vector<uint32_t> HappensBefore::clock_of(const ExecutionGraph& g, uint32_t e) const {
  std::vector<uint32_t> preds;
  const GraphEvent& ev = g.at(e);
  uint32_t prev = g.po_previous(e);
  if (prev != kNone) preds.push_back(prev);
  if (ev.sync_from != kNone) preds.push_back(ev.sync_from);
  if (resolved(ev) && ev.atomic() && ev.is_acquire()) release_heads(g, ev.rf, preds);
  if (ev.kind == GraphKind::Fence && ev.is_acquire()) {
    // Relaxed reads po-before it, back to the previous acquire fence.
    for (uint32_t k = prev; k != kNone; k = g.po_previous(k)) {
      const GraphEvent& r = g.at(k);
      if (r.kind == GraphKind::Fence && r.is_acquire()) break;
      if (resolved(r) && r.atomic() && !r.is_acquire()) release_heads(g, r.rf, preds);
    }
  }
  size_t nthreads = 0;
  for (uint32_t p : preds) nthreads = std::max(nthreads, clocks_[p].size());
  nthreads = std::max<size_t>(nthreads, ev.thread + 1);
  std::vector<uint32_t> c(nthreads, 0);
  for (uint32_t p : preds)
    for (size_t t = 0; t < clocks_[p].size(); t++) c[t] = std::max(c[t], clocks_[p][t]);
  c[ev.thread] = std::max(c[ev.thread], ev.index + 1);
  return c;
}

const PscGraph& HappensBefore::psc() const {
  if (!psc_) psc_ = std::make_shared<const PscGraph>(*events_, *this);
  return *psc_;
}

bool consistent_last(const ExecutionGraph& g, const HappensBefore& hb, shm::MemoryModel model) {
  uint32_t e = uint32_t(g.size() - 1);
  const GraphEvent& ev = g.at(e);
  bool sc_fences = false;
  for (const GraphEvent& x : g.events())
    if (x.kind == GraphKind::Fence && x.is_sc()) sc_fences = true;
  if (sc_fences) return inconsistency(g, model).empty();
  if (!on_location(ev)) return true;
  MoPositions mo(g);
  if (ev.kind == GraphKind::Rmw && ev.rf != kNone && mo.of(e) != mo.of(ev.rf) + 1) return false;
  if (ev.is_write()) {
    // The store now right after e in mo must not be a RMW of the one before.
    const auto* order = g.mo_of(ev.loc);
    auto self = std::find(order->begin(), order->end(), e);
    if (self + 1 < order->end()) {
      const GraphEvent& next = g.at(*(self + 1));
      if (next.kind == GraphKind::Rmw && next.rf != e) return false;
    }
  }
  std::vector<uint32_t> clock = hb.clock_of(g, e);
  auto before_e = [&](uint32_t a) {
    const GraphEvent& x = g.at(a);
    return x.thread < clock.size() && clock[x.thread] > x.index;
  };
  for (uint32_t a = 0; a < e; a++) {
    const GraphEvent& ea = g.at(a);
    if (!on_location(ea) || ea.loc != ev.loc || !before_e(a)) continue;
    if (ea.is_write() && ev.is_write() && mo.of(a) >= mo.of(e)) return false;
    if (ea.is_write() && resolved(ev) && mo.of(ev.rf) < mo.of(a)) return false;
    if (resolved(ea) && ev.is_write() && mo.of(ea.rf) >= mo.of(e)) return false;
    if (resolved(ea) && resolved(ev) && mo.of(ev.rf) < mo.of(ea.rf)) return false;
  }
  if (model == shm::MemoryModel::RC11 && resolved(ev) && ev.rf != kInit && ev.rf > e) return false;
  // SC: only cycles through e are new (PscGraph::closes_cycle).
  if (ev.is_sc() && hb.psc().closes_cycle(g, clock)) return false;
  return true;
}

bool HappensBefore::compute(const ExecutionGraph& g) {
  events_ = &g;
  psc_.reset();
  size_t n = g.size();
  auto by_thread = threads_of(g);
  std::vector<std::vector<uint32_t>> preds(n);
  for (uint32_t i = 0; i < n; i++) {
    const GraphEvent& e = g.at(i);
    if (e.index > 0) preds[i].push_back(by_thread[e.thread][e.index - 1]);
    if (e.sync_from != kNone && e.sync_from < n) preds[i].push_back(e.sync_from);
  }
  // Synchronises-with: a release head (a release store, or a release fence,
  // po-before a store of its release sequence) to an acquire (the read
  // itself, or the first acquire fence po-after a relaxed read).
  for (uint32_t r = 0; r < n; r++) {
    const GraphEvent& e = g.at(r);
    if (!resolved(e) || e.rf == kInit || !e.atomic()) continue;
    uint32_t target = kNone;
    if (e.is_acquire()) {
      target = r;
    } else {
      const auto& mine = by_thread[e.thread];
      for (uint32_t k = e.index + 1; k < mine.size(); k++) {
        const GraphEvent& f = g.at(mine[k]);
        if (f.kind == GraphKind::Fence && f.is_acquire()) {
          target = mine[k];
          break;
        }
      }
    }
    if (target == kNone) continue;
    std::vector<uint32_t> heads;
    release_heads(g, e.rf, heads);
    for (uint32_t head : heads)
      if (head != target) preds[target].push_back(head);
  }
  // Kahn's order over the predecessors; a cycle leaves events unvisited.
  std::vector<std::vector<uint32_t>> succs(n);
  std::vector<uint32_t> indegree(n, 0);
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t p : preds[i]) {
      succs[p].push_back(i);
      indegree[i]++;
    }
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < n; i++)
    if (indegree[i] == 0) ready.push_back(i);
  size_t nthreads = by_thread.size();
  clocks_.assign(n, std::vector<uint32_t>(nthreads, 0));
  size_t done = 0;
  while (!ready.empty()) {
    uint32_t i = ready.back();
    ready.pop_back();
    done++;
    std::vector<uint32_t>& c = clocks_[i];
    for (uint32_t p : preds[i])
      for (size_t t = 0; t < nthreads; t++) c[t] = std::max(c[t], clocks_[p][t]);
    c[g.at(i).thread] = std::max(c[g.at(i).thread], g.at(i).index + 1);
    for (uint32_t s : succs[i])
      if (--indegree[s] == 0) ready.push_back(s);
  }
  return done == n;
}

std::string inconsistency(const ExecutionGraph& g, shm::MemoryModel model) {
  size_t n = g.size();
  HappensBefore hb;
  if (!hb.compute(g)) return "happens-before is cyclic";
  MoPositions mo(g);

  // Atomicity.
  for (uint32_t u = 0; u < n; u++) {
    const GraphEvent& e = g.at(u);
    if (e.kind == GraphKind::Rmw && e.rf != kNone && mo.of(u) != mo.of(e.rf) + 1) return "atomicity";
  }

  // Coherence, per location.
  std::map<uint64_t, std::vector<uint32_t>> by_loc;
  for (uint32_t i = 0; i < n; i++)
    if (on_location(g.at(i))) by_loc[g.at(i).loc].push_back(i);
  for (const auto& [loc, evs] : by_loc)
    for (uint32_t a : evs)
      for (uint32_t b : evs) {
        if (a == b || !hb.before(a, b)) continue;
        const GraphEvent &ea = g.at(a), &eb = g.at(b);
        if (ea.is_write() && eb.is_write() && mo.of(a) >= mo.of(b)) return "coherence (write-write)";
        if (ea.is_write() && resolved(eb) && mo.of(eb.rf) < mo.of(a)) return "coherence (write-read)";
        if (resolved(ea) && eb.is_write() && mo.of(ea.rf) >= mo.of(b)) return "coherence (read-write)";
        if (resolved(ea) && resolved(eb) && mo.of(eb.rf) < mo.of(ea.rf)) return "coherence (read-read)";
      }

  // No thin air (rc11): po ∪ rf ∪ synchronisation acyclic. Every edge but rf
  // points forward in execution order, so a read of a later store is the
  // only way to close a cycle, and only a promise reads one.
  if (model == shm::MemoryModel::RC11)
    for (uint32_t r = 0; r < n; r++)
      if (resolved(g.at(r)) && g.at(r).rf != kInit && g.at(r).rf > r) return "no-thin-air (po ∪ rf cycle)";

  // SC: psc acyclic, over memory events and fences.
  size_t sc_count = 0;
  bool sc_fences = false;
  for (uint32_t i = 0; i < n; i++)
    if (memory_event(g.at(i)) && g.at(i).is_sc()) {
      sc_count++;
      if (g.at(i).kind == GraphKind::Fence) sc_fences = true;
    }
  if (sc_count < 2) return "";
  bool acyclic = sc_fences ? psc_acyclic_by_matrices(g, hb) : PscGraph(g, hb).acyclic(uint32_t(n));
  return acyclic ? "" : "SC (psc cycle)";
}

bool psc_acyclic_by_matrices(const ExecutionGraph& g, const HappensBefore& hb) {
  size_t n = g.size();
  MoPositions mo(g);
  std::vector<uint32_t> m;  // memory events, by relation index
  for (uint32_t i = 0; i < n; i++)
    if (memory_event(g.at(i))) m.push_back(i);
  size_t k = m.size();
  BitRelation po(k), hbr(k), scb(k), eco(k), po_diff(k);
  for (size_t a = 0; a < k; a++)
    for (size_t b = 0; b < k; b++) {
      if (a == b) continue;
      const GraphEvent &ea = g.at(m[a]), &eb = g.at(m[b]);
      bool same_loc = on_location(ea) && on_location(eb) && ea.loc == eb.loc;
      if (ea.thread == eb.thread && ea.index < eb.index) {
        po.add(a, b);
        if (!same_loc) po_diff.add(a, b);
      }
      if (hb.before(m[a], m[b])) {
        hbr.add(a, b);
        if (same_loc) scb.add(a, b);
      }
      if (!same_loc) continue;
      // mo, rf, fr
      if (ea.is_write() && eb.is_write() && mo.of(m[a]) < mo.of(m[b])) {
        scb.add(a, b);
        eco.add(a, b);
      }
      if (resolved(eb) && eb.rf == m[a]) eco.add(a, b);
      if (resolved(ea) && eb.is_write() && mo.of(ea.rf) < mo.of(m[b])) {
        scb.add(a, b);
        eco.add(a, b);
      }
    }
  scb.unite(po);
  scb.unite(po_diff.then(hbr).then(po_diff));
  BitRelation eco_plus = eco.closure();
  BitRelation hb_eco_hb = hbr.then(eco_plus).then(hbr);
  hb_eco_hb.unite(hbr);

  std::vector<size_t> sc;  // relation indices of SC events
  for (size_t a = 0; a < k; a++)
    if (g.at(m[a]).is_sc()) sc.push_back(a);
  // [E_sc] ∪ [F_sc];hb? on the left, [E_sc] ∪ hb?;[F_sc] on the right.
  BitRelation left(k), right(k);
  for (size_t a : sc) {
    left.add(a, a);
    right.add(a, a);
    if (g.at(m[a]).kind != GraphKind::Fence) continue;
    for (size_t x = 0; x < k; x++) {
      if (hbr.has(a, x)) left.add(a, x);
      if (hbr.has(x, a)) right.add(x, a);
    }
  }
  BitRelation base = left.then(scb).then(right);
  BitRelation psc(sc.size());
  for (size_t i = 0; i < sc.size(); i++)
    for (size_t j = 0; j < sc.size(); j++) {
      size_t a = sc[i], b = sc[j];
      bool fences = g.at(m[a]).kind == GraphKind::Fence && g.at(m[b]).kind == GraphKind::Fence;
      if (base.has(a, b) || (fences && hb_eco_hb.has(a, b))) psc.add(i, j);
    }
  return psc.acyclic();
}

}  // namespace ctrl
