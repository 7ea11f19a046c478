#include "ExecutionGraph.h"

#include <algorithm>

namespace ctrl {

GraphKind graph_kind_of(const shm::Event& e) {
  bool failed = e.flags & (shm::kFailed | shm::kTimedOut);
  switch (OpKind(e.kind)) {
    case OpKind::AtomicLoad:
      return GraphKind::Read;
    case OpKind::AtomicStore:
    case OpKind::MutexUnlock:
    case OpKind::CondWait:
    case OpKind::CondTimedWait:
      return GraphKind::Write;
    case OpKind::AtomicRmw:
    case OpKind::MutexLock:
    case OpKind::CondReacquire:
      return GraphKind::Rmw;
    case OpKind::AtomicCas:
    case OpKind::MutexTryLock:
    case OpKind::MutexTimedLock:
      return failed ? GraphKind::Read : GraphKind::Rmw;
    case OpKind::Rmw:
      return (e.flags & shm::kLocked) ? GraphKind::Rmw : GraphKind::Other;
    case OpKind::Fence:
      return GraphKind::Fence;
    default:
      return GraphKind::Other;
  }
}

namespace {

// Synchronisation the memory model does not see as memory: the object whose
// events keep the order they ran in (0: none).
uint64_t chained_object(const shm::Event& e) {
  auto k = OpKind(e.kind);
  // Every synchronisation operation but a mutex's own (a condition wait
  // also chains on its condition).
  if (op_is_sync(k) && (!op_on_mutex(k) || op_on_condition(k))) return e.addr ? e.addr : 1;
  return 0;
}

}  // namespace

ExecutionGraph ExecutionGraph::build(const shm::Event* events, uint64_t n, const std::vector<StepChoice>& choices) {
  ExecutionGraph g;
  g.events_.reserve(n);
  std::vector<uint32_t> per_thread;             // events so far, per thread
  std::vector<uint32_t> last_of;                // last step, per thread
  std::map<uint32_t, uint32_t> creator;         // child thread -> its ThreadCreate step
  std::map<uint64_t, uint32_t> last_on_object;  // chained objects
  for (uint64_t i = 0; i < n; i++) {
    const shm::Event& ev = events[i];
    GraphEvent e;
    e.thread = ev.thread;
    if (per_thread.size() <= e.thread) {
      per_thread.resize(e.thread + 1, 0);
      last_of.resize(e.thread + 1, kNone);
    }
    e.index = per_thread[e.thread]++;
    e.op = OpKind(ev.kind);
    e.kind = graph_kind_of(ev);
    e.order = MemOrder(ev.order);
    e.rmw = RmwOp(ev.rmw);
    e.rval = ev.value_read;
    e.wval = ev.value_written;
    e.loc = ev.addr;
    e.size = ev.size;
    e.locked = ev.flags & shm::kLocked;
    e.same_state = ev.flags & shm::kSameState;
    if (op_on_mutex(e.op)) {
      // A lock acquires, an unlock releases; a condition wait releases the
      // mutex (aux) and the reacquisition takes it again.
      e.order = e.kind == GraphKind::Write ? MemOrder::Release : MemOrder::Acquire;
      if (e.op == OpKind::CondWait || e.op == OpKind::CondTimedWait || e.op == OpKind::CondReacquire) e.loc = ev.aux;
      e.fixed = true;
    }
    if (e.op == OpKind::Rmw || e.op == OpKind::Fence) {
      if (ev.flags & shm::kInstruction) {
        e.order = MemOrder::SeqCst;  // a locked instruction, mfence
        e.fixed = true;
      }
    }
    if (e.op == OpKind::AtomicCas) e.expected = ev.aux;  // under c11/rc11 (SharedRegion.h)
    if (e.op == OpKind::AtomicStore && (i >= choices.size() || !(choices[i].choice.flags & shm::kNotMoLast))) {
      // The bytes memory held before a mo-last store: the initial value
      // when no store of this execution came before.
      auto it = g.mo_.find(e.loc);
      if (it == g.mo_.end() || it->second.empty()) g.init_.emplace(e.loc, ev.aux);
    }
    if (e.op == OpKind::ThreadCreate) creator[uint32_t(ev.aux)] = uint32_t(i);
    if (e.op == OpKind::ThreadStart) {
      auto it = creator.find(e.thread);
      if (it != creator.end()) e.sync_from = it->second;
    }
    if (e.op == OpKind::ThreadJoin && ev.aux < last_of.size()) e.sync_from = last_of[ev.aux];
    if (uint64_t obj = chained_object(ev)) {
      auto [it, fresh] = last_on_object.try_emplace(obj, uint32_t(i));
      if (!fresh) {
        if (e.sync_from == kNone) e.sync_from = it->second;
        it->second = uint32_t(i);
      }
    }
    last_of[e.thread] = uint32_t(i);

    const StepChoice* c = i < choices.size() ? &choices[i] : nullptr;
    if (e.is_read()) {
      if (c && c->choice.kind == shm::ChoiceKind::Promise) {
        e.promise = true;  // GraphStrategy finds the store that keeps it
        e.rf = kNone;
      } else if (c && c->rf != kNone) {
        e.rf = c->rf;
      } else {
        e.rf = g.mo_last(e.loc);
      }
      if (e.rf == kInit && !e.promise) g.init_.emplace(e.loc, e.rval);
    }
    if (e.is_write()) {
      std::vector<uint32_t>& order = g.mo_[e.loc];
      if (e.kind == GraphKind::Rmw && e.rf != kNone && !e.promise) {
        // Right after the store it read.
        auto at = e.rf == kInit ? order.begin() : std::find(order.begin(), order.end(), e.rf) + 1;
        order.insert(std::min(at, order.end()), uint32_t(i));
      } else if (c && c->mo_before != kNone) {
        auto at = std::find(order.begin(), order.end(), c->mo_before);
        order.insert(at, uint32_t(i));
      } else {
        order.push_back(uint32_t(i));
      }
    }
    g.events_.push_back(e);
  }
  return g;
}

const std::vector<uint32_t>* ExecutionGraph::mo_of(uint64_t loc) const {
  auto it = mo_.find(loc);
  return it == mo_.end() ? nullptr : &it->second;
}

uint64_t ExecutionGraph::init_value(uint64_t loc) const {
  auto it = init_.find(loc);
  return it == init_.end() ? 0 : it->second;
}

size_t ExecutionGraph::mo_position(uint64_t loc, uint32_t w) const {
  if (w == kInit) return 0;
  const auto* order = mo_of(loc);
  if (!order) return 0;
  return size_t(std::find(order->begin(), order->end(), w) - order->begin()) + 1;
}

uint32_t ExecutionGraph::mo_last(uint64_t loc) const {
  const auto* order = mo_of(loc);
  return order && !order->empty() ? order->back() : kInit;
}

ExecutionGraph ExecutionGraph::prefix(size_t n) const {
  ExecutionGraph g;
  g.events_.assign(events_.begin(), events_.begin() + std::min(n, events_.size()));
  g.init_ = init_;
  for (const auto& [loc, order] : mo_) {
    std::vector<uint32_t>& kept = g.mo_[loc];
    for (uint32_t w : order)
      if (w < n) kept.push_back(w);
  }
  for (auto& e : g.events_)
    if (e.is_read() && e.rf != kInit && e.rf != kNone && e.rf >= n) e.rf = kNone;
  return g;
}

void ExecutionGraph::pop_last() {
  uint32_t step = uint32_t(events_.size() - 1);
  const GraphEvent& e = events_.back();
  if (e.is_write()) {
    auto it = mo_.find(e.loc);
    if (it != mo_.end()) it->second.erase(std::remove(it->second.begin(), it->second.end(), step), it->second.end());
  }
  events_.pop_back();
}

uint32_t ExecutionGraph::po_previous(uint32_t e) const {
  uint32_t t = events_[e].thread;
  for (uint32_t i = e; i-- > 0;)
    if (events_[i].thread == t) return i;
  return kNone;
}

std::vector<bool> ExecutionGraph::porf_prefix(uint32_t e) const {
  std::vector<bool> in(events_.size(), false);
  std::vector<uint32_t> work{e};
  in[e] = true;
  while (!work.empty()) {
    uint32_t x = work.back();
    work.pop_back();
    auto add = [&](uint32_t y) {
      if (y != kNone && y != kInit && y < events_.size() && !in[y]) {
        in[y] = true;
        work.push_back(y);
      }
    };
    const GraphEvent& ev = events_[x];
    add(po_previous(x));
    if (ev.is_read() && !ev.promise) add(ev.rf);
    add(ev.sync_from);
  }
  return in;
}

uint64_t ExecutionGraph::canonical_hash() const {
  // FNV-1a over (thread, index) names in a fixed order: threads, then po.
  auto mix = [](uint64_t h, uint64_t v) {
    for (int b = 0; b < 8; b++) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
    return h;
  };
  auto name = [&](uint32_t w) -> uint64_t {
    if (w == kInit || w == kNone) return w;
    return (uint64_t(events_[w].thread) << 32) | events_[w].index;
  };
  std::vector<uint32_t> order(events_.size());
  for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return name(a) < name(b); });
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i : order) {
    const GraphEvent& e = events_[i];
    h = mix(h, name(i));
    h = mix(h, uint64_t(e.op) | (uint64_t(e.kind) << 16));
    h = mix(h, e.loc);
    if (e.is_read()) h = mix(h, name(e.rf));
  }
  for (const auto& [loc, stores] : mo_) {
    h = mix(h, loc);
    for (uint32_t w : stores) h = mix(h, name(w));
  }
  return h;
}

}  // namespace ctrl
