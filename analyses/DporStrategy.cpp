#include "DporStrategy.h"

#include <algorithm>
#include <unordered_map>

namespace ctrl {

namespace {

uint64_t bit(uint32_t t) { return uint64_t(1) << t; }

// Whether an event had to wait for its thread's store buffer to drain.
bool drains(const shm::Event& e) {
  switch (OpKind(e.kind)) {
    case OpKind::Load:
    case OpKind::AtomicLoad:
    case OpKind::Yield:
    case OpKind::ThreadStart:
      return false;
    case OpKind::Store:
    case OpKind::AtomicStore:
    case OpKind::Rmw:
      return !(e.flags & shm::kBuffered);
    case OpKind::Fence:
      return MemOrder(e.order) == MemOrder::SeqCst;
    default:
      return true;
  }
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
  switch (OpKind(e.kind)) {
    case OpKind::MutexLock:
    case OpKind::MutexTryLock:
    case OpKind::MutexTimedLock:
    case OpKind::RwReadLock:
    case OpKind::RwWriteLock:
    case OpKind::RwTryReadLock:
    case OpKind::RwTryWriteLock:
    case OpKind::RwTimedReadLock:
    case OpKind::RwTimedWriteLock:
    case OpKind::SemWait:
    case OpKind::SemTryWait:
    case OpKind::SemTimedWait:
      return failed ? ObjectRole::Plain : ObjectRole::Acquire;
    case OpKind::CondReacquire:  // the condition (0) woke it; the mutex (1) it takes
      return which == 0 ? ObjectRole::EnabledBy : ObjectRole::Acquire;
    case OpKind::ThreadJoin:
    case OpKind::BarrierLeave:
      return ObjectRole::EnabledBy;
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
  ExecutionPlan plan;
  plan.policy = shm::TailPolicy::Sticky;
  if (!started_) {
    started_ = true;
    branch_ = 0;
    return plan;
  }
  if (optimal_) {
    for (uint64_t i = stack_.size(); i-- > 0;) {
      Position& pos = stack_[i];
      if (pos.wakeup.children.empty()) continue;
      chosen_ = std::move(pos.wakeup.children.front());
      pos.wakeup.children.erase(pos.wakeup.children.begin());
      // Everything tried here so far sleeps from here on.
      plan.sleep_mask = mask_of(pos.sleep) | pos.done;
      plan.sleep_from = i;
      add_sleepers(plan, pos, chosen_.thread);
      pos.done |= bit(chosen_.thread);
      for (uint64_t k = 0; k < i; ++k) plan.prefix.push_back(stack_[k].event.thread);
      // The whole leftmost branch of the chosen subtree is forced.
      for (const Node* n = &chosen_;; n = &n->children.front()) {
        plan.prefix.push_back(n->thread);
        if (n->children.empty()) break;
      }
      branch_ = i;
      return plan;
    }
    exhausted_ = true;
    return std::nullopt;
  }
  for (uint64_t i = stack_.size(); i-- > 0;) {
    Position& pos = stack_[i];
    uint64_t asleep = mask_of(pos.sleep);
    uint64_t open = pos.backtrack & ~pos.done & ~asleep;
    if (!open) continue;
    uint32_t q = uint32_t(__builtin_ctzll(open));
    // Threads already tried here, and the state's own sleepers, sleep in the
    // new branch until something they depend on happens.
    plan.sleep_mask = asleep | (pos.done & ~bit(q));
    add_sleepers(plan, pos, q);
    pos.done |= bit(q);
    plan.prefix.reserve(i + 1);
    for (uint64_t k = 0; k < i; ++k) plan.prefix.push_back(stack_[k].event.thread);
    plan.prefix.push_back(q);
    branch_ = i;
    return plan;
  }
  exhausted_ = true;
  return std::nullopt;
}

void DporStrategy::completed(const ExecutionSummary& summary) {
  const shm::Event* events = summary.events;
  uint64_t n = summary.steps;

  uint64_t from = std::min<uint64_t>(branch_, n);
  if (from < stack_.size()) {
    // The step at the branch point is the newly tried thread's: remember what
    // it did, for the sleep sets of its siblings.
    if (from < n) {
      Position& pos = stack_[from];
      pos.event = events[from];
      pos.tried.push_back(Sleeper{events[from].thread, access_of(events[from])});
    }
    stack_.resize(from + 1);
  }
  for (uint64_t k = stack_.size(); k < n; ++k) {
    Position pos;
    pos.event = events[k];
    pos.enabled = events[k].enabled;
    pos.backtrack = pos.done = bit(events[k].thread);
    pos.tried.push_back(Sleeper{events[k].thread, access_of(events[k])});
    if (k > 0) {
      // sleep(k) = the sleepers of k-1 (and, at the branch point, the threads
      // tried there before) whose next step commutes with step k-1.
      const Position& prev = stack_[k - 1];
      Access ran = access_of(events[k - 1]);
      auto keep = [&](const Sleeper& s) {
        if (s.thread != events[k - 1].thread && !conflicts(s.next, ran)) pos.sleep.push_back(s);
      };
      for (const auto& s : prev.sleep) keep(s);
      if (k - 1 == from)
        for (const auto& s : prev.tried)
          if (s.thread != events[k - 1].thread) keep(s);
    }
    stack_.push_back(std::move(pos));
  }
  if (stack_.size() > n) stack_.resize(n);
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
  analyse(events, n, from);
}

void DporStrategy::add_sleepers(ExecutionPlan& plan, const Position& pos, uint32_t chosen) {
  for (const auto& s : pos.sleep) plan.sleepers.emplace_back(s.thread, to_record(s.next));
  for (const auto& s : pos.tried)
    if (s.thread != chosen && (plan.sleep_mask >> s.thread & 1)) plan.sleepers.emplace_back(s.thread, to_record(s.next));
}

bool DporStrategy::happens_before(uint64_t a, uint64_t b) const {
  // a -> b iff b's clock has seen a's position in a's thread.
  return clocks_[b][thread_[a]] >= seq_[a];
}

void DporStrategy::analyse(const shm::Event* events, uint64_t n, uint64_t from) {
  clocks_.assign(n, Clock{});
  seq_.assign(n, 0);
  thread_.assign(n, 0);
  std::array<Clock, shm::kMaxThreads> now{};
  std::array<int64_t, shm::kMaxThreads> last_of_thread;
  last_of_thread.fill(-1);
  std::array<int64_t, shm::kMaxThreads> created_by;  // the create event of each thread
  created_by.fill(-1);
  struct Byte {
    int64_t write = -1;
    std::vector<int64_t> reads;  // since the write, the latest per thread
  };
  std::unordered_map<uint64_t, Byte> bytes;
  struct Object {
    int64_t last = -1;          // latest operation of any kind
    int64_t last_acquire = -1;  // latest successful acquisition
  };
  std::unordered_map<uint64_t, Object> objects;
  std::vector<int64_t> cands, racing, hb_only;
  // Store buffers: the owner of each flush actor, each thread's latest
  // sfence, and each actor's flushes (event, store) for PSO's sfence order.
  std::array<int64_t, shm::kMaxThreads> last_sfence;
  last_sfence.fill(-1);
  sfence_before_.assign(n, -1);
  owner_.fill(UINT32_MAX);
  std::array<std::vector<std::pair<int64_t, int64_t>>, shm::kMaxThreads> flushes;

  for (uint64_t k = 0; k < n; ++k) {
    const shm::Event& e = events[k];
    uint32_t p = e.thread;
    thread_[k] = p;
    Clock c = now[p];
    if (last_of_thread[p] < 0 && created_by[p] >= 0) {
      const Clock& cc = clocks_[created_by[p]];
      for (uint32_t t = 0; t < shm::kMaxThreads; ++t) c[t] = std::max(c[t], cc[t]);
    }
    Access a = access_of(e);

    // The conflicting events this one is ordered after: the latest per object
    // and, per byte, the latest write (and for writes the reads since).
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
    auto each_byte = [](uint64_t addr, uint64_t size, auto&& f) {
      for (uint64_t b = addr; b < addr + size; ++b) f(b);
    };
    each_byte(a.write_addr, a.write_size, [&](uint64_t b) {
      auto it = bytes.find(b);
      if (it == bytes.end()) return;
      if (it->second.write >= 0) cands.push_back(it->second.write);
      for (int64_t r : it->second.reads) cands.push_back(r);
    });
    auto reads = [&](uint64_t b) {
      auto it = bytes.find(b);
      if (it != bytes.end() && it->second.write >= 0) cands.push_back(it->second.write);
    };
    each_byte(a.read_addr, a.read_size, reads);
    each_byte(a.read2_addr, a.read2_size, reads);
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
    // Store buffers: a flush comes after the store it commits and (PSO)
    // after the flushes of its thread's stores that precede an sfence before
    // that store; anything that waits for an empty buffer (all but plain
    // loads and buffered stores) comes after the last flush of each of its
    // thread's buffers.
    if (OpKind(e.kind) == OpKind::Flush) {
      if (e.aux < k) {
        hb_only.push_back(int64_t(e.aux));
        int64_t bound = sfence_before_[e.aux];
        for (uint32_t f = shm::kFlushActorBase; f < shm::kMaxThreads && bound >= 0; ++f) {
          if (f == p || owner_[f] != e.owner) continue;
          for (auto it = flushes[f].rbegin(); it != flushes[f].rend(); ++it)
            if (it->second < bound) {
              hb_only.push_back(it->first);
              break;
            }
        }
      }
      owner_[p] = e.owner;
      flushes[p].emplace_back(int64_t(k), int64_t(e.aux));
    } else if (p < shm::kFlushActorBase && drains(e)) {
      for (uint32_t f = shm::kFlushActorBase; f < shm::kMaxThreads; ++f)
        if (owner_[f] == p && last_of_thread[f] >= 0) hb_only.push_back(last_of_thread[f]);
    }
    if (p < shm::kFlushActorBase) {
      sfence_before_[k] = last_sfence[p];
      if (store_fence(e)) last_sfence[p] = int64_t(k);
    }

    // The event's clock: its thread's, joined with every conflicting event
    // it comes after. Races are judged against the clock before the join,
    // and need this one (add_backtrack asks what happens before e_k).
    const Clock before = c;
    for (const auto* list : {&cands, &hb_only})
      for (int64_t x : *list)
        for (uint32_t t = 0; t < shm::kMaxThreads; ++t) c[t] = std::max(c[t], clocks_[x][t]);
    ++c[p];
    clocks_[k] = c;
    seq_[k] = c[p];
    now[p] = c;

    // Races: conflicting events of other threads not already ordered before
    // this one, and not ordered before another such event (no event between).
    if (k >= from) {
      racing.clear();
      for (int64_t x : cands)
        if (thread_[x] != p && before[thread_[x]] < seq_[x]) racing.push_back(x);
      for (int64_t x : racing) {
        bool covered = false;
        for (int64_t y : racing)
          if (y != x && happens_before(uint64_t(x), uint64_t(y))) covered = true;
        if (!covered) {
          ++races_;
          if (optimal_)
            insert_race(events, uint64_t(x), k);
          else
            add_backtrack(events, uint64_t(x), k);
        }
      }
    }
    last_of_thread[p] = int64_t(k);
    if (OpKind(e.kind) == OpKind::ThreadCreate && e.aux < shm::kMaxThreads && !(e.flags & shm::kFailed))
      created_by[e.aux] = int64_t(k);

    for (int which = 0; which < 2; ++which) {
      uint64_t o = which == 0 ? a.object : a.object2;
      if (!o) continue;
      Object& obj = objects[o];
      obj.last = int64_t(k);
      if (object_role(e, which) == ObjectRole::Acquire) obj.last_acquire = int64_t(k);
    }
    each_byte(a.write_addr, a.write_size, [&](uint64_t b) {
      Byte& s = bytes[b];
      s.write = int64_t(k);
      s.reads.clear();
    });
    auto note_read = [&](uint64_t b) {
      Byte& s = bytes[b];
      for (auto& r : s.reads)
        if (thread_[r] == p) {
          r = int64_t(k);
          return;
        }
      s.reads.push_back(int64_t(k));
    };
    each_byte(a.read_addr, a.read_size, note_read);
    each_byte(a.read2_addr, a.read2_size, note_read);
  }
}

void DporStrategy::add_backtrack(const shm::Event* events, uint64_t i, uint64_t j) {
  // v = the events after e_i that do not happen after it, then e_j. Its
  // initials: threads whose first event in v has no predecessor in v.
  std::vector<uint64_t> v;
  for (uint64_t m = i + 1; m < j; ++m)
    if (!happens_before(i, m)) v.push_back(m);
  v.push_back(j);
  uint64_t initials = initials_of(events, v);

  Position& pos = stack_[i];
  if (pos.backtrack & initials) return;
  uint32_t p = thread_[j];
  uint64_t runnable = initials & pos.enabled;
  if (!runnable) {
    // No initial can run in that state (a blocking operation): trying every
    // enabled thread there is always sound.
    pos.backtrack |= pos.enabled;
    return;
  }
  pos.backtrack |= (runnable & bit(p)) ? bit(p) : (runnable & -runnable);
}

std::vector<std::vector<bool>> DporStrategy::order_within(const shm::Event* events,
                                                          const std::vector<uint64_t>& v) const {
  std::vector<std::vector<bool>> before(v.size(), std::vector<bool>(v.size(), false));
  std::vector<Access> acc;
  for (uint64_t m : v) acc.push_back(access_of(events[m]));
  for (size_t b = 0; b < v.size(); ++b) {
    const shm::Event& eb = events[v[b]];
    for (size_t a = 0; a < b; ++a) {
      const shm::Event& ea = events[v[a]];
      bool direct = thread_[v[a]] == thread_[v[b]] || conflicts(acc[a], acc[b]) ||
                    (OpKind(eb.kind) == OpKind::ThreadStart && OpKind(ea.kind) == OpKind::ThreadCreate &&
                     ea.aux == eb.thread) ||
                    (OpKind(eb.kind) == OpKind::Flush && eb.aux == v[a]) ||
                    (OpKind(ea.kind) == OpKind::Flush && eb.thread < shm::kFlushActorBase &&
                     ea.owner == eb.thread && drains(eb)) ||
                    (OpKind(ea.kind) == OpKind::Flush && OpKind(eb.kind) == OpKind::Flush &&
                     ea.owner == eb.owner && eb.aux < sfence_before_.size() &&
                     int64_t(ea.aux) < sfence_before_[eb.aux]);
      if (!direct) continue;
      before[b][a] = true;
      for (size_t x = 0; x < a; ++x)
        if (before[a][x]) before[b][x] = true;
    }
  }
  return before;
}

uint64_t DporStrategy::initials_of(const shm::Event* events, const std::vector<uint64_t>& v) const {
  auto before = order_within(events, v);
  uint64_t initials = 0, seen = 0;
  for (size_t b = 0; b < v.size(); ++b) {
    uint32_t t = thread_[v[b]];
    if (seen & bit(t)) continue;
    seen |= bit(t);
    bool first = true;
    for (size_t a = 0; a < b && first; ++a) first = !before[b][a];
    if (first) initials |= bit(t);
  }
  return initials;
}

bool DporStrategy::weak_initial(const shm::Event* events, uint32_t thread, const Access& step,
                                const std::vector<uint64_t>& v) const {
  // A thread is a weak initial of v when v can start with its step: its first
  // event in v has no predecessor in v, or it has none in v and its step
  // commutes with all of v.
  for (uint64_t m : v)
    if (thread_[m] == thread) return initials_of(events, v) & bit(thread);
  for (uint64_t m : v)
    if (conflicts(step, access_of(events[m]))) return false;
  return true;
}

void DporStrategy::remove_first(std::vector<uint64_t>& v, uint32_t thread) const {
  for (auto it = v.begin(); it != v.end(); ++it)
    if (thread_[*it] == thread) {
      v.erase(it);
      return;
    }
}

void DporStrategy::insert_race(const shm::Event* events, uint64_t i, uint64_t j) {
  std::vector<uint64_t> v;
  for (uint64_t m = i + 1; m < j; ++m)
    if (!happens_before(i, m)) v.push_back(m);
  v.push_back(j);

  // Redundant when a thread asleep at that state (or tried there before)
  // could start v: that part of the space is covered.
  const Position& at = stack_[i];
  for (const auto& s : at.sleep)
    if (weak_initial(events, s.thread, s.next, v)) return;
  for (const auto& s : at.tried)
    if (s.thread != thread_[i] && weak_initial(events, s.thread, s.next, v)) return;

  // Follow the current path while its steps can start v; then the trees.
  uint64_t k = i;
  for (;;) {
    if (v.empty()) return;
    const shm::Event& here = events[k];
    if (!weak_initial(events, here.thread, access_of(here), v)) break;
    remove_first(v, here.thread);
    if (k + 1 >= stack_.size() || !stack_[k + 1].forced) return;  // a leaf: covered
    ++k;
  }
  Node* node = &stack_[k].wakeup;
  for (;;) {
    if (v.empty()) return;
    Node* next = nullptr;
    for (Node& child : node->children)
      if (weak_initial(events, child.thread, child.access, v)) {
        next = &child;
        break;
      }
    if (!next) {
      // A new branch: the rest of v, in order.
      Node* tail = node;
      for (uint64_t m : v) {
        tail->children.push_back(Node{thread_[m], access_of(events[m]), {}});
        tail = &tail->children.back();
      }
      return;
    }
    remove_first(v, next->thread);
    if (next->children.empty()) return;  // a leaf: covered
    node = next;
  }
}

}  // namespace ctrl
