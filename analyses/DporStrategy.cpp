#include "DporStrategy.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "DporEvents.h"
#include "FairYields.h"

namespace ctrl {

using namespace dpor;

namespace {

// A sleeping thread whose next step is a load forwarded whole from its own
// buffer reads its own store whatever other threads' flushes do.
bool forwarded_sleeper(const BufferedStores& buffers, uint32_t t, const Access& next) {
  return only_reads(next) && buffers.forwarding_store(t, next.read_addr, next.read_size) >= 0;
}

// An sfence instruction (logged as a release fence): under PSO, stores before
// it reach memory before stores after it.
bool store_fence(const shm::Event& e) {
  return OpKind(e.kind) == OpKind::Fence && (e.flags & shm::kInstruction) && MemOrder(e.order) == MemOrder::Release;
}

enum class ObjectRole {
  Plain,      // conflicts (and may race) with the object's previous operation
  Acquire,    // enabled by the previous release; races with the previous acquisition
  EnabledBy,  // only possible after the previous operation: ordered, never a race
};

// The role of event `e` on its first (which == 0) or second object.
ObjectRole object_role(const shm::Event& e, int which) {
  bool failed = e.flags & shm::kFailed;
  if (op_acquires(OpKind(e.kind))) return failed ? ObjectRole::Plain : ObjectRole::Acquire;
  switch (OpKind(e.kind)) {
    case OpKind::CondReacquire:  // the condition (0) woke it; the mutex (1) it takes
      return which == 0 ? ObjectRole::EnabledBy : ObjectRole::Acquire;
    case OpKind::ThreadJoin:
      return ObjectRole::EnabledBy;
    case OpKind::FutexWoken:  // a wake picked it; timed out, it only acted on the queue
      return (e.flags & shm::kTimedOut) ? ObjectRole::Plain : ObjectRole::EnabledBy;
    default:
      return ObjectRole::Plain;
  }
}

}  // namespace

uint64_t DporStrategy::mask_of(const std::vector<Sleeper>& s) {
  uint64_t m = 0;
  for (const auto& x : s) m |= bit(x.thread);
  return m;
}

std::optional<ExecutionPlan> DporStrategy::next() {
  if (!started_) {
    started_ = true;
    branch_ = 0;
    ExecutionPlan plan = fixed_plan();
    plan.policy = shm::TailPolicy::Sticky;
    if (root_sleep_) {
      // A work item's root: its siblings tried before it sleep in it.
      plan.sleep_mask = root_sleep_mask_;
      plan.sleep_from = fixed_steps() - 1;
      for (const auto& s : *root_sleep_) plan.sleepers.emplace_back(s.thread, to_record(s.next));
    }
    in_flight_ = true;
    return plan;
  }
  ExecutionPlan plan;
  plan.policy = shm::TailPolicy::Sticky;
  // The states before the fixed prefix's end are never branched at (none
  // has a backtrack thread or a wakeup tree: analyse adds none there).
  const uint64_t fixed = fixed_steps();
  if (optimal_) {
    for (uint64_t i = stack_.size(); i-- > fixed;) {
      Position& pos = stack_[i];
      if (pos.wakeup.children.empty()) {
        // State i would be left for good: a reversal still waiting there is
        // decided now, every subtree below i having been explored. It may
        // add a branch at or below i: look again from the deepest state
        // (which also keeps every tree it walks through empty).
        auto waiting = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.at == i; });
        if (waiting == pending_.end()) continue;
        Pending p = std::move(*waiting);
        pending_.erase(waiting);
        insert(p.at, std::move(p.v), true);
        i = stack_.size();
        continue;
      }
      chosen_ = std::move(pos.wakeup.children.front());
      pos.wakeup.children.erase(pos.wakeup.children.begin());
      // Everything tried here so far sleeps from here on.
      plan.sleep_mask = mask_of(pos.sleep) | pos.done;
      plan.sleep_from = i;
      add_sleepers(plan, pos, chosen_.step.thread);
      pos.done |= bit(chosen_.step.thread);
      for (uint64_t k = 0; k < i; ++k) plan.prefix.push_back(stack_[k].event.thread);
      // The whole leftmost branch of the chosen subtree is forced.
      for (const Node* n = &chosen_;; n = &n->children.front()) {
        plan.prefix.push_back(n->step.thread);
        if (n->children.empty()) break;
      }
      branch_ = i;
      return plan;
    }
    exhausted_ = true;
    return std::nullopt;
  }
  for (uint64_t i = stack_.size(); i-- > fixed;) {
    Position& pos = stack_[i];
    uint64_t asleep = mask_of(pos.sleep);
    uint64_t open = pos.backtrack & ~pos.done & ~asleep;
    if (!open) continue;
    uint32_t q = uint32_t(__builtin_ctzll(open));
    branch_plan(plan, i, pos, asleep, q);
    branch_ = i;
    branch_thread_ = q;
    in_flight_ = true;
    return plan;
  }
  exhausted_ = true;
  return std::nullopt;
}

void DporStrategy::branch_plan(ExecutionPlan& plan, uint64_t i, Position& pos, uint64_t asleep, uint32_t q) const {
  // Threads already tried here, and the state's own sleepers, sleep in the
  // new branch until something they depend on happens.
  plan.sleep_mask = asleep | (pos.done & ~bit(q));
  add_sleepers(plan, pos, q);
  pos.done |= bit(q);
  plan.prefix.reserve(i + 1);
  for (uint64_t k = 0; k < i; ++k) plan.prefix.push_back(stack_[k].event.thread);
  plan.prefix.push_back(q);
}

void DporStrategy::truncate_stack(size_t size) {
  for (size_t k = size; k < stack_.size(); ++k) {
    Position& pos = stack_[k];
    for (auto* list : {&pos.sleep, &pos.tried})
      if (list->capacity()) {
        list->clear();
        spare_sleepers_.push_back(std::move(*list));
      }
  }
  stack_.resize(size);
}

DporStrategy::Position DporStrategy::fresh_position() {
  Position pos;
  for (auto* list : {&pos.sleep, &pos.tried})
    if (!spare_sleepers_.empty()) {
      *list = std::move(spare_sleepers_.back());
      spare_sleepers_.pop_back();
    }
  return pos;
}

void DporStrategy::completed(const ExecutionSummary& summary) {
  const shm::Event* events = summary.events;
  uint64_t n = summary.steps;
  in_flight_ = false;

  uint64_t from = std::min<uint64_t>(branch_, n);
  if (from < stack_.size()) {
    // The step at the branch point is the newly tried thread's: remember what
    // it did, for the sleep sets of its siblings.
    if (from < n) {
      Position& pos = stack_[from];
      pos.event = events[from];
      pos.tried.push_back(Sleeper{events[from].thread, access_of(events[from]), events[from]});
    }
    truncate_stack(from + 1);
  }
  const bool buffers = model_.store_buffers();
  BufferedStores& buffered = buffered_;
  buffered.clear();
  const ModelAnalysis::ForwardsWhole whole{&buffered, [](const void* b, uint32_t t, const Access& next) {
                                             return forwarded_sleeper(*static_cast<const BufferedStores*>(b), t, next);
                                           }};
  if (buffers)
    for (uint64_t k = 0; k + 1 < stack_.size() && k < n; ++k) buffered.note(events[k], int64_t(k));
  for (uint64_t k = stack_.size(); k < n; ++k) {
    if (stop_requested()) return;
    if (k > 0 && buffers) buffered.note(events[k - 1], int64_t(k - 1));
    Position pos = fresh_position();
    pos.event = events[k];
    pos.enabled = events[k].enabled;
    pos.backtrack = pos.done = bit(events[k].thread);
    pos.tried.push_back(Sleeper{events[k].thread, access_of(events[k]), events[k]});
    if (k > 0) {
      // sleep(k) = the sleepers of k-1 (and, at the branch point, the threads
      // tried there before) whose next step commutes with step k-1.
      const Position& prev = stack_[k - 1];
      Access ran = access_of(events[k - 1]);
      // The model's exceptions (under TSO/PSO a flush and its own
      // thread's sleeper, or one whose load its buffer forwards whole; the
      // agent's Runtime::wake_sleepers applies the same rule).
      auto keep = [&](const Sleeper& s) {
        if (s.thread == events[k - 1].thread) return;
        if (!conflicts(s.next, ran) || (buffers && model_.keeps_asleep(events[k - 1], s.thread, s.next, whole)))
          pos.sleep.push_back(s);
      };
      for (const auto& s : prev.sleep) keep(s);
      if (k - 1 == from)
        for (const auto& s : prev.tried)
          if (s.thread != events[k - 1].thread) keep(s);
    }
    // A work item's root state: the sleep set it was handed.
    if (root_sleep_ && k + 1 == fixed_steps()) pos.sleep = *root_sleep_;
    stack_.push_back(std::move(pos));
  }
  if (stack_.size() > n) truncate_stack(n);
  // What fair scheduling of yields let run at each state: the agent's rule
  // replayed over the log (same calls, same answers).
  FairYields fair;
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t allowed = fair.allowed(events[k].enabled);
    if (k < stack_.size()) stack_[k].fair = allowed;
    fair.ran(events[k].thread, OpKind(events[k].kind) == OpKind::Yield, events[k].enabled);
  }
  if (optimal_ && from < n && from + 1 <= stack_.size()) {
    // The rest of the chosen branch: each level's other children stay to be
    // run from that position.
    Node cur = std::move(chosen_);
    chosen_ = Node{};
    for (uint64_t k = from + 1; k < n && !cur.children.empty(); ++k) {
      Node child = std::move(cur.children.front());
      cur.children.erase(cur.children.begin());
      stack_[k].wakeup.children = std::move(cur.children);
      stack_[k].forced = true;
      cur = std::move(child);
    }
  }
  if (optimal_) {
    history_.assign(n, 0);
    std::array<uint64_t, shm::kMaxThreads> h{};
    for (uint64_t k = 0; k < n; ++k) {
      const shm::Event& e = events[k];
      uint64_t& t = h[e.thread % shm::kMaxThreads];
      history_[k] = t;
      for (uint64_t x : {uint64_t(e.kind), e.site, e.addr, uint64_t(e.size), e.value_read, e.value_written, e.aux,
                         uint64_t(e.flags & (shm::kFailed | shm::kBuffered | shm::kForwarded))})
        t = mix(t, x);
    }
    end_history_ = h;
    remember_natures(events, n);
    // Reversals waiting for a nature: this execution may have shown it
    // (the step they wait for ran). Older ones first, as they would have
    // been inserted first.
    std::vector<Pending> waiting = std::move(pending_);
    pending_.clear();
    for (auto& p : waiting)
      if (p.at < stack_.size() && !insert(p.at, p.v, false)) pending_.push_back(std::move(p));
  }
  analyse(events, n, from, summary.pending, summary.npending);
}

void DporStrategy::add_sleepers(ExecutionPlan& plan, const Position& pos, uint32_t chosen) {
  for (const auto& s : pos.sleep) plan.sleepers.emplace_back(s.thread, to_record(s.next));
  for (const auto& s : pos.tried)
    if (s.thread != chosen && (plan.sleep_mask >> s.thread & 1))
      plan.sleepers.emplace_back(s.thread, to_record(s.next));
}

bool DporStrategy::happens_before(uint64_t a, uint64_t b) const {
  // a -> b iff b's clock has seen a's position in a's thread.
  return clocks_[b][slot_[thread_[a]]] >= seq_[a];
}

void DporStrategy::ByteTable::reset() {
  used = 0;
  if (++gen == 0) {  // wrapped: no entry may look current
    for (auto& e : slots) e.gen = 0;
    gen = 1;
  }
}

namespace {
size_t byte_hash(uint64_t addr, size_t mask) { return size_t((addr * 0x9E3779B97F4A7C15ULL) >> 32) & mask; }
}  // namespace

DporStrategy::ByteState* DporStrategy::ByteTable::find(uint64_t addr) {
  if (slots.empty()) return nullptr;
  size_t mask = slots.size() - 1;
  for (size_t h = byte_hash(addr, mask);; h = (h + 1) & mask) {
    ByteState& e = slots[h];
    if (e.gen != gen) return nullptr;
    if (e.addr == addr) return &e;
  }
}

DporStrategy::ByteState& DporStrategy::ByteTable::at(uint64_t addr) {
  if (ByteState* e = find(addr)) return *e;
  if (2 * (used + 1) > slots.size()) {
    std::vector<ByteState> old = std::move(slots);
    slots.assign(old.empty() ? 64 : 2 * old.size(), ByteState{});
    size_t mask = slots.size() - 1;
    for (auto& e : old) {
      if (e.gen != gen) continue;
      size_t h = byte_hash(e.addr, mask);
      while (slots[h].gen == gen) h = (h + 1) & mask;
      slots[h] = std::move(e);
    }
  }
  size_t mask = slots.size() - 1;
  size_t h = byte_hash(addr, mask);
  while (slots[h].gen == gen) h = (h + 1) & mask;
  ByteState& e = slots[h];
  e.addr = addr;
  e.gen = gen;
  e.write = -1;
  e.reads.clear();
  ++used;
  return e;
}

void DporStrategy::reset_analysis() {
  trail_.clear();
  trail_values_.clear();
  bytes_.reset();
  objects_.clear();
  opened_by_.clear();
  exposed_by_flush_.clear();
  analysed_buffers_.clear();
  for (auto& f : flushes_) f.clear();
  last_of_thread_.fill(-1);
  created_by_.fill(-1);
  last_sfence_.fill(-1);
  woken_by_.fill(-1);
  waiting_on_.fill(0);
  timed_wait_.fill(0);
  owner_.fill(UINT32_MAX);
  last_exit_ = -1;
}

void DporStrategy::rewind(uint64_t from) {
  while (!trail_.empty() && trail_.back().k >= from) {
    const Undo& u = trail_.back();
    switch (u.op) {
      case Undo::Word:
        std::memcpy(reinterpret_cast<void*>(u.key), &u.a, u.size);
        break;
      case Undo::ByteWrite: {
        ByteState* s = bytes_.find(u.key);
        s->write = u.a;
        s->reads.assign(trail_values_.begin() + u.b, trail_values_.begin() + u.b + u.c);
        trail_values_.resize(size_t(u.b));
        break;
      }
      case Undo::ByteReadSet:
        bytes_.find(u.key)->reads[size_t(u.a)] = u.b;
        break;
      case Undo::ByteReadPush:
        bytes_.find(u.key)->reads.pop_back();
        break;
      case Undo::Object:
        if (u.c)
          objects_[u.key] = AnalysisObject{u.a, u.b};
        else
          objects_.erase(u.key);
        break;
      case Undo::Opened:
        if (u.c)
          opened_by_[u.key] = u.a;
        else
          opened_by_.erase(u.key);
        break;
      case Undo::ExposedPush: {
        auto it = exposed_by_flush_.find(int64_t(u.key));
        it->second.pop_back();
        if (it->second.empty()) exposed_by_flush_.erase(it);
        break;
      }
      case Undo::ExposedErase:
        exposed_by_flush_[int64_t(u.key)].assign(trail_values_.begin() + u.b, trail_values_.begin() + u.b + u.c);
        trail_values_.resize(size_t(u.b));
        break;
      case Undo::Buffered:
        analysed_buffers_.undo(u.change);
        break;
      case Undo::FlushPush:
        flushes_[u.key].pop_back();
        break;
    }
    trail_.pop_back();
  }
}

void DporStrategy::analyse(const shm::Event* events, uint64_t n, uint64_t from, const shm::Event* pending,
                           uint64_t npending) {
  // Where this analysis starts: the branch point when the state of the
  // last analysis can be rewound there (the same events before it), else
  // the first event.
  uint64_t start = 0;
  // (A full start also empties the byte table, where entries made after a
  // branch point stay behind, empty, when the state is rewound.)
  if (analysed_valid_ && !optimal_ && from <= analysed_.size() && bytes_.used < (size_t(1) << 20) &&
      std::memcmp(analysed_.data(), events, from * sizeof(shm::Event)) == 0)
    start = from;
  analysed_valid_ = false;
  if (start > 0)
    rewind(start);
  else
    reset_analysis();
  clocks_.resize(n);
  seq_.resize(n);
  thread_.resize(n);
  for (uint64_t k = start; k < n; ++k) clocks_[k].fill(0);
  // Clocks have one entry per thread (or flush actor) that appears, in
  // order of first appearance: joins and copies run over those alone (flush
  // actors are numbered from kFlushActorBase, so under TSO indexing by
  // thread would make every clock at least 33 entries wide).
  uint32_t width = 0;
  slot_.fill(0);
  uint64_t appeared = 0;
  auto appear = [&](uint32_t t) {
    if (t >= shm::kMaxThreads || (appeared & bit(t))) return;
    appeared |= bit(t);
    slot_[t] = uint8_t(width++);
  };
  for (uint64_t k = 0; k < n; ++k) appear(events[k].thread);
  for (uint64_t q = 0; q < npending; ++q) appear(pending[q].thread);
  // Each appearing thread's clock so far (its first `width` entries; the
  // rows of threads that do not appear are never read). Kept as a member:
  // zeroing all kMaxThreads rows was 16 KB per execution.
  // (A thread's clock is that of its latest event.)
  auto& now = now_;
  auto& last_of_thread = last_of_thread_;
  auto& created_by = created_by_;  // the create event of each thread
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) {
    if (last_of_thread[t] >= 0)
      now[t] = clocks_[uint64_t(last_of_thread[t])];
    else if (appeared & bit(t))
      std::fill_n(now[t].begin(), width, 0u);
  }
  auto& objects = objects_;
  // Reused from one execution to the next: analysing one allocates
  // nothing for them once they have grown.
  std::vector<int64_t>& cands = cands_;
  std::vector<int64_t>& racing = racing_;
  std::vector<int64_t>& hb_only = hb_only_;
  std::vector<std::pair<uint64_t, uint64_t>> races;  // optimal mode: (i, j), inserted once every clock is known
  // Store buffers: the owner of each flush actor, each thread's latest
  // sfence, and each actor's flushes (event, store) for PSO's sfence order.
  auto& last_sfence = last_sfence_;
  sfence_before_.resize(n);
  std::fill(sfence_before_.begin() + int64_t(start), sfence_before_.end(), -1);
  auto& flushes = flushes_;
  // Condition waits: what each thread waits on, and the signal or broadcast
  // that woke it (a signal logs the thread it woke).
  enablers_.resize(n);
  for (uint64_t k = start; k < n; ++k) enablers_[k].clear();  // their capacity is kept
  auto& waiting_on = waiting_on_;
  auto& woken_by = woken_by_;
  auto& timed_wait = timed_wait_;
  // Barriers: the arrival that opened each generation (it enables the others'
  // leaving it; Dependence.h).
  auto& opened_by = opened_by_;
  // Chronological traces (Abdulla et al., TSO/PSO): each thread's buffered
  // stores not yet flushed, and the loads forwarded wholly from each store,
  // which only its flush exposes to later writes.
  const bool buffers = model_.store_buffers();
  BufferedStores& buffered = analysed_buffers_;
  auto& exposed_by_flush = exposed_by_flush_;

  auto each_byte = [](uint64_t addr, uint64_t size, auto&& f) {
    for (uint64_t b = addr; b < addr + size; ++b) f(b);
  };
  // The conflicting events an event (of thread p, access a) is ordered
  // after: the latest per object and, per byte, the latest write (and for
  // writes the reads since), in `cands` when they may race, in `hb_only`
  // when they only order it.
  auto collect = [&](const shm::Event& e, const Access& a, uint32_t p) {
    bool real = p < shm::kFlushActorBase;
    cands.clear();
    hb_only.clear();
    if (a.everything) {
      for (uint32_t t = 0; t < shm::kMaxThreads; ++t)
        if (t != p && last_of_thread[t] >= 0) cands.push_back(last_of_thread[t]);
    }
    // On a synchronisation object, an operation another one enabled (a
    // join after the exit, a lock after the unlock, a wake-up after the
    // signal) cannot be moved before it: that pair only orders. Acquisitions
    // race with the previous acquisition instead.
    for (int which = 0; which < 2; ++which) {
      uint64_t o = which == 0 ? a.object : a.object2;
      if (!o) continue;
      auto it = objects.find(o);
      if (it == objects.end()) continue;
      ObjectRole role = object_role(e, which);
      if (role == ObjectRole::Plain) {
        cands.push_back(it->second.last);
      } else {
        hb_only.push_back(it->second.last);
        if (role == ObjectRole::Acquire && it->second.last_acquire >= 0) cands.push_back(it->second.last_acquire);
      }
    }
    bool flush = OpKind(e.kind) == OpKind::Flush;
    each_byte(a.write_addr, a.write_size, [&](uint64_t b) {
      const ByteState* s = bytes_.find(b);
      if (!s) return;
      if (s->write >= 0) cands.push_back(s->write);
      for (int64_t r : s->reads)
        if (!flush || thread_[r] != e.owner) cands.push_back(r);
    });
    auto own_flush = [&](int64_t w) { return real && OpKind(events[w].kind) == OpKind::Flush && events[w].owner == p; };
    auto reads = [&](uint64_t b) {
      const ByteState* s = bytes_.find(b);
      if (s && s->write >= 0 && !own_flush(s->write)) cands.push_back(s->write);
    };
    each_byte(a.read_addr, a.read_size, reads);
    each_byte(a.read2_addr, a.read2_size, reads);
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
  };
  // The latest process exit (it conflicts with whatever comes after it).
  int64_t& last_exit = last_exit_;

  for (uint64_t k = start; k < n; ++k) {
    if (stop_requested()) return;
    const shm::Event& e = events[k];
    uint32_t p = e.thread;
    thread_[k] = p;
    // The event's clock is built in place (the entries past `width` stay 0).
    Clock& c = clocks_[k];
    std::copy_n(now[p].begin(), width, c.begin());
    // A thread starts after its creation. (Not only at its index's first
    // event: an index is reused after a join by the creator,
    // ExecutionModel::add_thread.)
    if (OpKind(e.kind) == OpKind::ThreadStart && created_by[p] >= 0) {
      const Clock& cc = clocks_[created_by[p]];
      for (uint32_t t = 0; t < width; ++t) c[t] = std::max(c[t], cc[t]);
    }
    Access a = access_of(e);
    // A load forwarded wholly from one of its thread's buffered stores reads
    // that store whatever other threads do, as long as the store is not
    // flushed: no race and no order with them until the flush, which
    // exposes it (below). And a thread's read never races with its own
    // flushes: before or after one, it reads the same bytes (its own).
    bool real = p < shm::kFlushActorBase;
    if (buffers && real && (e.flags & shm::kForwarded) && only_reads(a)) {
      int64_t store = buffered.forwarding_store(p, a.read_addr, a.read_size);
      if (store >= 0) {
        exposed_by_flush[store].push_back(int64_t(k));
        trail_.push_back(Undo{k, Undo::ExposedPush, 0, uint64_t(store)});
        a = Access{};
      }
    }

    bool flush = OpKind(e.kind) == OpKind::Flush;
    collect(e, a, p);
    // Store buffers: a flush comes after the store it commits and (PSO)
    // after the flushes of its thread's stores that precede an sfence before
    // that store; anything that waits for an empty buffer (all but plain
    // loads and buffered stores) comes after the last flush of each of its
    // thread's buffers.
    size_t buffered_from = hb_only.size();
    if (buffers && OpKind(e.kind) == OpKind::Flush) {
      if (e.aux < k) {
        hb_only.push_back(int64_t(e.aux));
        int64_t bound = model_.sfence_orders_flushes() ? sfence_before_[e.aux] : -1;
        for (uint32_t f = shm::kFlushActorBase; f < shm::kMaxThreads && bound >= 0; ++f) {
          if (f == p || owner_[f] != e.owner) continue;
          for (auto it = flushes[f].rbegin(); it != flushes[f].rend(); ++it)
            if (it->second < bound) {
              hb_only.push_back(it->first);
              break;
            }
        }
      }
      trail_set(k, owner_[p], uint32_t(e.owner));
      flushes[p].emplace_back(int64_t(k), int64_t(e.aux));
      trail_.push_back(Undo{k, Undo::FlushPush, 0, p});
    } else if (buffers && p < shm::kFlushActorBase && drains(e)) {
      for (uint32_t f = shm::kFlushActorBase; f < shm::kMaxThreads; ++f)
        if (owner_[f] == p && last_of_thread[f] >= 0) hb_only.push_back(last_of_thread[f]);
    }
    if (buffers && p < shm::kFlushActorBase) {
      sfence_before_[k] = last_sfence[p];
      if (store_fence(e)) trail_set(k, last_sfence[p], int64_t(k));
    }
    if (OpKind(e.kind) == OpKind::BarrierLeave) {
      auto it = opened_by.find(barrier_object(e.addr, e.value_read));
      if (it != opened_by.end()) hb_only.push_back(it->second);
    }
    // Those orders can never be reversed (a flush cannot precede its store,
    // nor a barrier leave the arrival that opened it).
    enablers_[k].assign(hb_only.begin() + int64_t(buffered_from), hb_only.end());

    // Races: conflicting events of other threads not already ordered before
    // this one, and not ordered before another such event (no event between).
    // Races wholly before the branch point were seen by earlier executions
    // (source mode: same backtrack points). Optimal mode reverses each one
    // again: its sequence takes in events after e_j, which differ now.
    // They are judged against the clock before the join below, and handled
    // after it (add_backtrack asks what happens before e_k).
    bool check_races = k >= from || optimal_;
    if (check_races) {
      racing.clear();
      for (int64_t x : cands)
        if (thread_[x] != p && c[slot_[thread_[x]]] < seq_[x]) racing.push_back(x);
    }
    // The event's clock: its thread's, joined with every conflicting event
    // it comes after.
    for (const auto* list : {&cands, &hb_only})
      for (int64_t x : *list)
        for (uint32_t t = 0; t < width; ++t) c[t] = std::max(c[t], clocks_[x][t]);
    ++c[slot_[p]];
    seq_[k] = c[slot_[p]];
    std::copy_n(c.begin(), width, now[p].begin());

    if (check_races) {
      for (int64_t x : racing) {
        bool covered = false;
        for (int64_t y : racing)
          if (y != x && happens_before(uint64_t(x), uint64_t(y))) covered = true;
        if (!covered) {
          ++races_;
          if (optimal_)
            races.emplace_back(uint64_t(x), k);
          else
            add_backtrack(events, uint64_t(x), k);
        }
      }
    }
    trail_set(k, last_of_thread[p], int64_t(k));
    if (a.everything) trail_set(k, last_exit, int64_t(k));
    if (OpKind(e.kind) == OpKind::ThreadCreate && e.aux < shm::kMaxThreads && !(e.flags & shm::kFailed))
      trail_set(k, created_by[e.aux], int64_t(k));
    switch (OpKind(e.kind)) {
      case OpKind::CondWait:
      case OpKind::CondTimedWait:
        trail_set(k, waiting_on[p], e.addr);
        trail_set(k, woken_by[p], int64_t(-1));
        trail_set(k, timed_wait[p], uint8_t(OpKind(e.kind) == OpKind::CondTimedWait));
        break;
      case OpKind::CondSignal:
        if (e.aux < shm::kMaxThreads) trail_set(k, woken_by[e.aux], int64_t(k));
        break;
      case OpKind::CondBroadcast:
        for (uint32_t t = 0; t < shm::kMaxThreads; ++t)
          if (waiting_on[t] == e.addr && woken_by[t] < 0) trail_set(k, woken_by[t], int64_t(k));
        break;
      case OpKind::CondReacquire:
        if (!timed_wait[p] && woken_by[p] >= 0) enablers_[k].push_back(woken_by[p]);
        trail_set(k, waiting_on[p], uint64_t(0));
        break;
      case OpKind::BarrierWait:
        if (e.aux) {
          uint64_t key = barrier_object(e.addr, e.value_read);
          auto it = opened_by.find(key);
          trail_.push_back(
              Undo{k, Undo::Opened, 0, key, it == opened_by.end() ? 0 : it->second, 0, it != opened_by.end()});
          opened_by[key] = int64_t(k);
        }
        break;
      default:
        break;
    }

    for (int which = 0; which < 2; ++which) {
      uint64_t o = which == 0 ? a.object : a.object2;
      if (!o) continue;
      auto [it, added] = objects.try_emplace(o);
      AnalysisObject& obj = it->second;
      trail_.push_back(Undo{k, Undo::Object, 0, o, obj.last, obj.last_acquire, !added});
      obj.last = int64_t(k);
      if (object_role(e, which) == ObjectRole::Acquire) obj.last_acquire = int64_t(k);
    }
    each_byte(a.write_addr, a.write_size, [&](uint64_t b) {
      ByteState& s = bytes_.at(b);
      trail_.push_back(Undo{k, Undo::ByteWrite, 0, b, s.write, int64_t(trail_values_.size()), int64_t(s.reads.size())});
      trail_values_.insert(trail_values_.end(), s.reads.begin(), s.reads.end());
      s.write = int64_t(k);
      s.reads.clear();
    });
    // The latest read of each thread since the write: thread q's becomes x.
    auto set_read = [&](uint64_t b, uint32_t q, int64_t x) {
      ByteState& s = bytes_.at(b);
      for (size_t i = 0; i < s.reads.size(); ++i)
        if (thread_[s.reads[i]] == q) {
          trail_.push_back(Undo{k, Undo::ByteReadSet, 0, b, int64_t(i), s.reads[i]});
          s.reads[i] = x;
          return;
        }
      trail_.push_back(Undo{k, Undo::ByteReadPush, 0, b});
      s.reads.push_back(x);
    };
    auto note_read = [&](uint64_t b) { set_read(b, p, int64_t(k)); };
    each_byte(a.read_addr, a.read_size, note_read);
    each_byte(a.read2_addr, a.read2_size, note_read);
    if (buffers) {
      BufferedStores::Change change = buffered.note_change(e, int64_t(k));
      if (change.kind != BufferedStores::Change::None) {
        Undo u{k, Undo::Buffered};
        u.change = change;
        trail_.push_back(u);
      }
    }
    if (flush) {
      // The loads forwarded from the store now read memory as this flush
      // left it: later writes there conflict with them.
      auto exposed = exposed_by_flush.find(int64_t(e.aux));
      if (exposed != exposed_by_flush.end()) {
        for (int64_t l : exposed->second)
          each_byte(events[l].addr, events[l].size, [&](uint64_t b) { set_read(b, thread_[l], l); });
        trail_.push_back(
            Undo{k, Undo::ExposedErase, 0, e.aux, 0, int64_t(trail_values_.size()), int64_t(exposed->second.size())});
        trail_values_.insert(trail_values_.end(), exposed->second.begin(), exposed->second.end());
        exposed_by_flush.erase(exposed);
      }
    }
  }
  analysed_.assign(events, events + n);
  analysed_valid_ = true;
  // Optimal mode: a reversal takes in events after e_j, so it needs every
  // clock of the execution.
  for (const auto& [i, j] : races) {
    if (stop_requested()) return;
    race_sequence(events, n, i, j);
  }

  // The execution ended (a process exit, a cut) with threads parked at an
  // operation they never ran. Each could have come next: it races with the
  // events it conflicts with, like one more event at the end (each alone:
  // they are alternatives). The exit conflicts with everything, and a
  // thread that never got a turn may do anything first; a store buffer
  // that could flush (no access: it races with the exit alone) must come
  // first for its thread to run a step that drains; neither can be
  // moved before the exit when it could not run there.
  for (uint64_t q = 0; q < npending; ++q) {
    const shm::Event& e = pending[q];
    uint32_t p = e.thread;
    bool can_run = e.enabled & bit(p);
    Clock c = now[p];
    if (OpKind(e.kind) == OpKind::ThreadStart && created_by[p] >= 0) c = clocks_[created_by[p]];
    Virtual last{e, access_of(e), n};
    if (OpKind(e.kind) == OpKind::ThreadStart) last.access = Access{.everything = true};
    collect(e, last.access, p);
    if (can_run && last_exit >= 0 && std::find(cands.begin(), cands.end(), last_exit) == cands.end())
      cands.push_back(last_exit);
    if (!can_run)
      cands.erase(std::remove_if(cands.begin(), cands.end(),
                                 [&](int64_t x) { return OpKind(events[x].kind) == OpKind::ProcessExit; }),
                  cands.end());
    // A blocked wake-up needs the signal it never got; a futex waiter that
    // cannot leave was never woken (a woken one is enabled), and a wake
    // cannot be moved before the wait it wakes.
    if (OpKind(e.kind) == OpKind::CondReacquire && !can_run && woken_by[p] < 0) continue;
    if (OpKind(e.kind) == OpKind::FutexWoken && !can_run) continue;
    racing.clear();
    for (int64_t x : cands)
      if (thread_[x] != p && c[slot_[thread_[x]]] < seq_[x]) racing.push_back(x);
    for (int64_t x : racing) {
      bool covered = false;
      for (int64_t y : racing)
        if (y != x && happens_before(uint64_t(x), uint64_t(y))) covered = true;
      if (covered) continue;
      ++races_;
      if (!optimal_)
        add_backtrack(events, uint64_t(x), n, &last);
      else if (can_run)  // a forced sequence must be able to run
        race_sequence(events, n, uint64_t(x), n, &last);
    }
  }
}

void DporStrategy::add_backtrack(const shm::Event* events, uint64_t i, uint64_t j, const Virtual* last) {
  // v = the events after e_i that do not happen after it, then e_j. Its
  // initials: threads whose first event in v has no predecessor in v.
  // Each race walks the events between its two (tens of thousands in a
  // long execution): Ctrl-C and the time limit are polled here too.
  // The decision at a state of the fixed prefix is not ours to change; in
  // a work item its owner's (a request), when this execution's new part
  // (from the item's branch on) takes part in the race.
  const bool above = i < fixed_steps();
  if (above && (!collect_requests_ || j + 1 < fixed_steps())) return;
  std::vector<uint64_t>& v = notdep_;
  v.clear();
  for (uint64_t m = i + 1; m < j; ++m) {
    if (stop_requested()) return;
    if (!happens_before(i, m)) v.push_back(m);
  }
  v.push_back(j);
  uint64_t initials = initials_of(events, v, last);
  uint32_t p = last ? last->event.thread : thread_[j];
  if (above) {
    requests_.push_back(Request{i, initials, p});
    return;
  }
  add_initials(i, initials, p);
}

bool DporStrategy::add_initials(uint64_t i, uint64_t initials, uint32_t p) {
  Position& pos = stack_[i];
  if (pos.backtrack & initials) return false;
  const uint64_t before = pos.backtrack;
  uint64_t runnable = initials & pos.enabled;
  if (!runnable) {
    // No initial can run in that state (a blocking operation): trying every
    // enabled thread there is always sound.
    add_fair(i, pos.enabled);
  } else if (uint64_t fair = runnable & pos.fair; !fair) {
    // Every initial gave way after yielding: the reversal is cut by
    // fairness. Trying every thread it allows there is what remains.
    add_fair(i, runnable | pos.fair);
  } else {
    pos.backtrack |= (fair & bit(p)) ? bit(p) : (fair & -fair);
  }
  return pos.backtrack != before;
}

void DporStrategy::add_fair(uint64_t i, uint64_t threads) {
  Position& pos = stack_[i];
  // The thread that ran here was the plan's or the tail's choice.
  uint64_t allowed = pos.fair | bit(pos.event.thread);
  pos.backtrack |= threads & allowed;
  uint64_t cut = threads & ~allowed & ~pos.backtrack & ~pos.held_back;
  pos.held_back |= cut;
  fairness_cuts_ += uint64_t(__builtin_popcountll(cut));
}

int64_t DporStrategy::flush_bound(const shm::Event& e) const {
  return OpKind(e.kind) == OpKind::Flush && e.aux < sfence_before_.size() ? sfence_before_[e.aux] : -1;
}

uint64_t DporStrategy::initials_of(const shm::Event* events, const std::vector<uint64_t>& v,
                                   const Virtual* last) const {
  // A thread is an initial when its first event in v has no predecessor in
  // v. Order within v is happens-before among the events of v alone, but
  // any chain of it ends with a direct order into the event, so the direct
  // orders decide: no closure (the closure over all of v, cubic, ran for
  // hours on an execution of 40000 events and kept ctrl past its time
  // limit), and only each thread's first event is examined: O(threads x |v|).
  std::vector<Access>& acc = initial_access_;
  std::vector<const shm::Event*>& ev = initial_events_;
  acc.clear();
  ev.clear();
  for (uint64_t m : v) {
    bool virt = last && m == last->index;
    ev.push_back(virt ? &last->event : &events[m]);
    acc.push_back(virt ? last->access : access_of(events[m]));
  }
  uint64_t initials = 0, seen = 0;
  for (size_t b = 0; b < v.size(); ++b) {
    uint32_t t = last && v[b] == last->index ? last->event.thread : thread_[v[b]];
    if (seen & bit(t)) continue;
    seen |= bit(t);
    bool first = true;
    int64_t bound = flush_bound(*ev[b]);
    for (size_t a = 0; a < b && first; ++a)
      first = !ordered_apart(*ev[a], v[a], *ev[b], bound) && !conflicts(acc[a], acc[b]);
    if (first) initials |= bit(t);
  }
  return initials;
}

}  // namespace ctrl
