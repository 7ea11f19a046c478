#include "RaSaturation.h"

#include <algorithm>

namespace ctrl {

namespace {
void set_bit(std::vector<uint64_t>& s, uint32_t i) {
  if (s.size() <= i / 64) s.resize(i / 64 + 1, 0);
  s[i / 64] |= uint64_t(1) << (i % 64);
}
void unite(std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t k = 0; k < from.size(); k++) into[k] |= from[k];
}
}  // namespace

std::vector<uint32_t> RaSaturation::seen(uint32_t last, uint32_t sync, uint64_t loc) const {
  std::vector<uint32_t> out;
  auto it = writes_.find(loc);
  if (it == writes_.end()) return out;
  const std::vector<uint64_t>& mask = it->second.mask;
  const std::vector<uint64_t>* a = last != kNone ? &hb_[last] : nullptr;
  const std::vector<uint64_t>* b = sync != kNone && sync != kInit && sync < hb_.size() ? &hb_[sync] : nullptr;
  for (size_t k = 0; k < mask.size(); k++) {
    uint64_t word = 0;
    if (a && k < a->size()) word |= (*a)[k];
    if (b && k < b->size()) word |= (*b)[k];
    for (word &= mask[k]; word; word &= word - 1) out.push_back(uint32_t(k * 64 + __builtin_ctzll(word)));
  }
  return out;
}

std::vector<uint32_t> RaSaturation::readable(const GraphEvent& e) const {
  uint32_t last = e.thread < last_of_thread_.size() ? last_of_thread_[e.thread] : kNone;
  return readable_after(seen(last, e.sync_from, e.loc), e.loc, e.kind == GraphKind::Rmw);
}

std::vector<uint32_t> RaSaturation::maximal_writes(uint64_t loc) const {
  auto it = writes_.find(loc);
  if (it == writes_.end()) return {};
  std::vector<uint32_t> out = readable_after(it->second.list, loc, false);
  out.erase(std::remove(out.begin(), out.end(), kInit), out.end());
  return out;
}

std::vector<uint64_t> RaSaturation::before(const std::vector<uint32_t>& seeds, uint64_t loc) const {
  // A path to a seed alternates hb segments (hb_, closed under po, rf and
  // sync) and co_loc edges between writes to loc: from each write reached,
  // the writes to loc in its strict hb past and its co-predecessors. The
  // strict pasts are united into `past` once each: a write already in it
  // adds only its co-predecessors, so a read costs about (threads + writes
  // reached) words, not a walk of every event before it.
  std::vector<uint64_t> marked((events_.size() + 63) / 64, 0), done = marked, past = marked;
  auto it = writes_.find(loc);
  if (it == writes_.end()) return marked;
  const std::vector<uint64_t>& mask = it->second.mask;
  std::vector<uint32_t> work(seeds);
  auto mark = [&](uint32_t w) {
    if (!bit(marked, w)) {
      marked[w / 64] |= uint64_t(1) << (w % 64);
      work.push_back(w);
    }
  };
  while (!work.empty()) {
    uint32_t t = work.back();
    work.pop_back();
    if (bit(done, t)) continue;
    done[t / 64] |= uint64_t(1) << (t % 64);
    if (!bit(past, t)) {
      const std::vector<uint64_t>& h = hb_[t];
      for (size_t k = 0; k < h.size() && k < past.size(); k++) {
        uint64_t fresh = h[k] & ~past[k];
        if (k == t / 64) fresh &= ~(uint64_t(1) << (t % 64));
        past[k] |= fresh;
        for (uint64_t m = k < mask.size() ? fresh & mask[k] : 0; m; m &= m - 1)
          mark(uint32_t(k * 64 + __builtin_ctzll(m)));
      }
    }
    for (uint32_t p : co_pred_[t]) mark(p);
  }
  return marked;
}

std::vector<uint32_t> RaSaturation::writes_after(uint32_t from, uint64_t loc) const {
  std::vector<uint8_t> reached(events_.size(), 0);
  std::vector<uint32_t> work{from}, out;
  auto mark = [&](uint32_t q) {
    if (!reached[q]) {
      reached[q] = 1;
      work.push_back(q);
      if (events_[q].is_write() && events_[q].loc == loc) out.push_back(q);
    }
  };
  while (!work.empty()) {
    uint32_t x = work.back();
    work.pop_back();
    for (uint32_t q : succ_[x]) mark(q);
    if (events_[x].is_write() && events_[x].loc == loc)
      for (uint32_t q : co_succ_[x]) mark(q);
  }
  return out;
}

std::vector<uint32_t> RaSaturation::readable_after(const std::vector<uint32_t>& s, uint64_t loc, bool rmw) const {
  // Events (po ∪ rf ∪ sync ∪ co_loc)+-before some seen write.
  std::vector<uint32_t> out;
  // The initial write is co-before every other: hidden once one is seen.
  if (s.empty() && !(rmw && init_reader_.count(loc))) out.push_back(kInit);
  auto it = writes_.find(loc);
  if (it == writes_.end()) return out;
  std::vector<uint64_t> hidden = before(s, loc);
  for (uint32_t w : it->second.list) {
    if (bit(hidden, w)) continue;
    if (rmw && rmw_reader_[w] != kNone) continue;
    out.push_back(w);
  }
  return out;
}

void RaSaturation::add_co(uint32_t a, uint32_t b) {
  // A RMW comes right after the write it read: what follows that write
  // follows the RMW.
  while (rmw_reader_[a] != kNone && rmw_reader_[a] != b) a = rmw_reader_[a];
  if (a == b) return;
  // And what precedes a RMW precedes the write it read (nothing comes
  // between them): the edge goes to the first write of b's chain.
  while (events_[b].kind == GraphKind::Rmw && events_[b].rf != kInit && events_[b].rf != kNone && events_[b].rf != a)
    b = events_[b].rf;
  if (a == b) return;
  if (std::find(co_succ_[a].begin(), co_succ_[a].end(), b) != co_succ_[a].end()) return;
  co_succ_[a].push_back(b);
  co_pred_[b].push_back(a);
}

bool RaSaturation::push(const GraphEvent& e) {
  uint32_t i = uint32_t(events_.size());
  std::vector<uint32_t> visible;
  if (e.is_read()) {
    if (e.rf == kNone) return false;
    std::vector<uint32_t> r = readable(e);
    if (std::find(r.begin(), r.end(), e.rf) == r.end()) return false;
    uint32_t last = e.thread < last_of_thread_.size() ? last_of_thread_[e.thread] : kNone;
    for (uint32_t v : seen(last, e.sync_from, e.loc))
      if (v != e.rf && std::find(r.begin(), r.end(), v) != r.end()) visible.push_back(v);
  }
  if (last_of_thread_.size() <= e.thread) last_of_thread_.resize(e.thread + 1, kNone);
  uint32_t prev = last_of_thread_[e.thread];
  events_.push_back(e);
  po_prev_.push_back(prev);
  co_pred_.emplace_back();
  co_succ_.emplace_back();
  rmw_reader_.push_back(kNone);
  succ_.emplace_back();
  std::vector<uint64_t> hb;
  if (prev != kNone) {
    unite(hb, hb_[prev]);
    succ_[prev].push_back(i);
  }
  if (e.is_read() && e.rf != kInit) {
    unite(hb, hb_[e.rf]);
    succ_[e.rf].push_back(i);
  }
  if (e.sync_from != kNone && e.sync_from != kInit && e.sync_from < i) {
    unite(hb, hb_[e.sync_from]);
    succ_[e.sync_from].push_back(i);
  }
  set_bit(hb, i);
  hb_.push_back(std::move(hb));
  if (e.is_write()) {
    LocWrites& lw = writes_[e.loc];
    lw.list.push_back(i);
    set_bit(lw.mask, i);
  }
  last_of_thread_[e.thread] = i;
  if (e.is_read() && e.rf != kInit)
    for (uint32_t v : visible) add_co(v, e.rf);
  if (!e.is_write()) return true;
  auto init = init_reader_.find(e.loc);
  if (e.kind == GraphKind::Rmw && e.rf == kInit) {
    // First after the initial write: before every other write.
    init_reader_[e.loc] = i;
    for (uint32_t w = 0; w < i; w++)
      if (events_[w].is_write() && events_[w].loc == e.loc) add_co(i, w);
  } else if (e.kind == GraphKind::Rmw) {
    // Right after the write it read: before every write that one precedes.
    std::vector<uint32_t> after = writes_after(e.rf, e.loc);
    add_co(e.rf, i);
    rmw_reader_[e.rf] = i;
    chained_[e.loc]++;
    for (uint32_t b : after)
      if (b != i) add_co(i, b);
  }
  if (init != init_reader_.end() && init->second != i) add_co(init->second, i);
  // A write some member of a chain (a write and the read-modify-writes that
  // read it one after the other) precedes comes after the whole chain.
  if (chained_[e.loc] > 0) {
    std::vector<uint64_t> b = before({i}, e.loc);
    for (uint32_t v : writes_[e.loc].list)
      if (v != i && bit(b, v) && rmw_reader_[v] != kNone) add_co(v, i);
  }
  return true;
}

}  // namespace ctrl

namespace ctrl {

void as_release_acquire(ExecutionGraph& g) {
  for (size_t i = 0; i < g.size(); i++) {
    GraphEvent& e = g.at(i);
    if (!e.atomic()) continue;
    if (e.kind == GraphKind::Fence) {
      e.kind = GraphKind::Other;
      continue;
    }
    if (e.kind == GraphKind::Rmw)
      e.order = MemOrder::AcqRel;
    else if (e.kind == GraphKind::Read)
      e.order = MemOrder::Acquire;
    else if (e.kind == GraphKind::Write)
      e.order = MemOrder::Release;
  }
}

}  // namespace ctrl
