#include "DporStrategy.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace ctrl {

namespace {

uint64_t bit(uint32_t t) { return uint64_t(1) << t; }

// A store or read-modify-write (what a buffer may hold).
bool is_write_kind(const shm::Event& e) {
  switch (OpKind(e.kind)) {
    case OpKind::Store:
    case OpKind::AtomicStore:
    case OpKind::Rmw:
      return true;
    default:
      return false;
  }
}

// The stores in each thread's buffers along an execution (TSO/PSO), as its
// events show them: a buffered store enters, its flush (aux = the store)
// leaves.
class BufferedStores {
 public:
  void note(const shm::Event& e, int64_t k);
  // The step of t's newest buffered store overlapping [addr, addr+size) if
  // it covers those bytes whole (a load there reads that store alone), else -1.
  int64_t forwarding_store(uint32_t t, uint64_t addr, uint64_t size) const {
    if (t >= shm::kFlushActorBase) return -1;
    for (auto it = stores_[t].rbegin(); it != stores_[t].rend(); ++it) {
      if (!ranges_overlap(it->addr, it->size, addr, size)) continue;
      return it->addr <= addr && addr + size <= it->addr + it->size ? it->store : -1;
    }
    return -1;
  }

 private:
  struct Store {
    int64_t store;
    uint64_t addr, size;
  };
  std::array<std::vector<Store>, shm::kFlushActorBase> stores_;
};

void BufferedStores::note(const shm::Event& e, int64_t k) {
  if (OpKind(e.kind) == OpKind::Flush) {
    if (e.owner >= shm::kFlushActorBase) return;
    auto& pending = stores_[e.owner];
    for (auto it = pending.begin(); it != pending.end(); ++it)
      if (it->store == int64_t(e.aux)) {
        pending.erase(it);
        return;
      }
  } else if (e.thread < shm::kFlushActorBase && (e.flags & shm::kBuffered) && is_write_kind(e)) {
    stores_[e.thread].push_back(Store{k, e.addr, e.size});
  }
}

// A sleeping thread whose next step is a load forwarded whole from its own
// buffer reads its own store whatever other threads' flushes do.
bool forwarded_sleeper(const BufferedStores& buffers, uint32_t t, const Access& next) {
  return only_reads(next) && buffers.forwarding_store(t, next.read_addr, next.read_size) >= 0;
}

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

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

uint64_t size_mask(uint32_t size) {
  switch (size) {
    case 1: return 0xff;
    case 2: return 0xffff;
    case 4: return 0xffffffffull;
    case 8: return ~uint64_t(0);
    default: return 0;  // odd sizes and wide accesses: values not logged in full
  }
}

bool is_rmw(const shm::Event& e) {
  auto k = OpKind(e.kind);
  return k == OpKind::Rmw || k == OpKind::AtomicRmw || k == OpKind::AtomicCas;
}

// Whether the event is a read-modify-write whose nature (Dependence.h: a
// read when it leaves memory as it was) depends on the value it finds.
// Additions, subtractions and xors change memory by the same amount
// wherever they run; an Rmw without RmwOp may be a compare-exchange.
bool nature_varies(const shm::Event& e) {
  if (!is_rmw(e) || (e.flags & (shm::kBuffered | shm::kForwarded))) return false;
  switch (RmwOp(e.rmw)) {
    case RmwOp::None: return OpKind(e.kind) != OpKind::AtomicRmw;  // odd-sized libatomic calls always write
    case RmwOp::Xchg:
    case RmwOp::Or:
    case RmwOp::And:
    case RmwOp::Nand: return true;
    default: return false;
  }
}

// The memory at the event's bytes when it ran, when the log has it in full:
// loads and read-modify-writes of 1, 2, 4 or 8 bytes that read memory (not
// a store buffer). Stores do not log the value they replace; string
// instructions log none (a lods or cmps names a second address).
std::optional<uint64_t> value_found(const shm::Event& e) {
  uint64_t mask = size_mask(e.size);
  if (!mask || (e.flags & (shm::kBuffered | shm::kForwarded))) return std::nullopt;
  switch (OpKind(e.kind)) {
    case OpKind::Load:
      if (e.aux) return std::nullopt;
      [[fallthrough]];
    case OpKind::AtomicLoad:
    case OpKind::Rmw:
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
      return e.value_read & mask;
    default:
      return std::nullopt;
  }
}

// The access of read-modify-write `e` when it does (or does not) write.
Access with_nature(const shm::Event& e, bool writes) {
  return access_of(OpKind(e.kind), e.addr, e.size, e.aux, !writes, e.thread, e.flags & shm::kInstruction);
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
      pos.tried.push_back(Sleeper{events[from].thread, access_of(events[from]), events[from]});
    }
    stack_.resize(from + 1);
  }
  BufferedStores buffered;
  for (uint64_t k = 0; k + 1 < stack_.size() && k < n; ++k) buffered.note(events[k], int64_t(k));
  for (uint64_t k = stack_.size(); k < n; ++k) {
    if (k > 0) buffered.note(events[k - 1], int64_t(k - 1));
    Position pos;
    pos.event = events[k];
    pos.enabled = events[k].enabled;
    pos.backtrack = pos.done = bit(events[k].thread);
    pos.tried.push_back(Sleeper{events[k].thread, access_of(events[k]), events[k]});
    if (k > 0) {
      // sleep(k) = the sleepers of k-1 (and, at the branch point, the threads
      // tried there before) whose next step commutes with step k-1.
      const Position& prev = stack_[k - 1];
      Access ran = access_of(events[k - 1]);
      // A thread's own flush commutes with whatever it does next (its loads
      // read its own bytes before and after it; a step waiting for the
      // drain was not enabled when it was put to sleep), and other threads'
      // flushes with a load forwarded whole from its buffer. (The agent's
      // Runtime::wake_sleepers applies the same rules.)
      bool flush = OpKind(events[k - 1].kind) == OpKind::Flush;
      auto keep = [&](const Sleeper& s) {
        if (s.thread == events[k - 1].thread) return;
        if ((flush && (events[k - 1].owner == s.thread || forwarded_sleeper(buffered, s.thread, s.next))) ||
            !conflicts(s.next, ran))
          pos.sleep.push_back(s);
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
    remember_natures(events, n);
    // Reversals waiting for a nature: this execution may have shown it
    // (the step they wait for ran). Older ones first, as they would have
    // been inserted first.
    std::vector<Pending> waiting = std::move(pending_);
    pending_.clear();
    for (auto& p : waiting)
      if (p.at < stack_.size() && !insert(p.at, p.v, false)) pending_.push_back(std::move(p));
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
  std::vector<std::pair<uint64_t, uint64_t>> races;  // optimal mode: (i, j), inserted once every clock is known
  // Store buffers: the owner of each flush actor, each thread's latest
  // sfence, and each actor's flushes (event, store) for PSO's sfence order.
  std::array<int64_t, shm::kMaxThreads> last_sfence;
  last_sfence.fill(-1);
  sfence_before_.assign(n, -1);
  owner_.fill(UINT32_MAX);
  std::array<std::vector<std::pair<int64_t, int64_t>>, shm::kMaxThreads> flushes;
  // Condition waits: what each thread waits on, and the signal or broadcast
  // that woke it (a signal logs the thread it woke).
  enablers_.assign(n, {});
  std::array<uint64_t, shm::kMaxThreads> waiting_on{};
  std::array<int64_t, shm::kMaxThreads> woken_by;
  woken_by.fill(-1);
  std::array<bool, shm::kMaxThreads> timed_wait{};
  // Chronological traces (Abdulla et al., TSO/PSO): each thread's buffered
  // stores not yet flushed, and the loads forwarded wholly from each store,
  // which only its flush exposes to later writes.
  BufferedStores buffered;
  std::unordered_map<int64_t, std::vector<int64_t>> exposed_by_flush;

  for (uint64_t k = 0; k < n; ++k) {
    const shm::Event& e = events[k];
    uint32_t p = e.thread;
    thread_[k] = p;
    Clock c = now[p];
    // A thread starts after its creation. (Not only at its index's first
    // event: an index is reused after a join by the creator,
    // ExecutionModel::add_thread.)
    if (OpKind(e.kind) == OpKind::ThreadStart && created_by[p] >= 0) {
      const Clock& cc = clocks_[created_by[p]];
      for (uint32_t t = 0; t < shm::kMaxThreads; ++t) c[t] = std::max(c[t], cc[t]);
    }
    Access a = access_of(e);
    // A load forwarded wholly from one of its thread's buffered stores reads
    // that store whatever other threads do, as long as the store is not
    // flushed: no race and no order with them until the flush, which
    // exposes it (below). And a thread's read never races with its own
    // flushes: before or after one, it reads the same bytes (its own).
    bool real = p < shm::kFlushActorBase;
    if (real && (e.flags & shm::kForwarded) && only_reads(a)) {
      int64_t store = buffered.forwarding_store(p, a.read_addr, a.read_size);
      if (store >= 0) {
        exposed_by_flush[store].push_back(int64_t(k));
        a = Access{};
      }
    }

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
    bool flush = OpKind(e.kind) == OpKind::Flush;
    each_byte(a.write_addr, a.write_size, [&](uint64_t b) {
      auto it = bytes.find(b);
      if (it == bytes.end()) return;
      if (it->second.write >= 0) cands.push_back(it->second.write);
      for (int64_t r : it->second.reads)
        if (!flush || thread_[r] != e.owner) cands.push_back(r);
    });
    auto own_flush = [&](int64_t w) {
      return real && OpKind(events[w].kind) == OpKind::Flush && events[w].owner == p;
    };
    auto reads = [&](uint64_t b) {
      auto it = bytes.find(b);
      if (it != bytes.end() && it->second.write >= 0 && !own_flush(it->second.write)) cands.push_back(it->second.write);
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
    size_t buffered_from = hb_only.size();
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
    // Those orders can never be reversed (a flush cannot precede its store).
    enablers_[k].assign(hb_only.begin() + int64_t(buffered_from), hb_only.end());

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
    // Races wholly before the branch point were seen by earlier executions
    // (source mode: same backtrack points). Optimal mode reverses each one
    // again: its sequence takes in events after e_j, which differ now.
    if (k >= from || optimal_) {
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
            races.emplace_back(uint64_t(x), k);
          else
            add_backtrack(events, uint64_t(x), k);
        }
      }
    }
    last_of_thread[p] = int64_t(k);
    if (OpKind(e.kind) == OpKind::ThreadCreate && e.aux < shm::kMaxThreads && !(e.flags & shm::kFailed))
      created_by[e.aux] = int64_t(k);
    switch (OpKind(e.kind)) {
      case OpKind::CondWait:
      case OpKind::CondTimedWait:
        waiting_on[p] = e.addr;
        woken_by[p] = -1;
        timed_wait[p] = OpKind(e.kind) == OpKind::CondTimedWait;
        break;
      case OpKind::CondSignal:
        if (e.aux < shm::kMaxThreads) woken_by[e.aux] = int64_t(k);
        break;
      case OpKind::CondBroadcast:
        for (uint32_t t = 0; t < shm::kMaxThreads; ++t)
          if (waiting_on[t] == e.addr && woken_by[t] < 0) woken_by[t] = int64_t(k);
        break;
      case OpKind::CondReacquire:
        if (!timed_wait[p] && woken_by[p] >= 0) enablers_[k].push_back(woken_by[p]);
        waiting_on[p] = 0;
        break;
      default:
        break;
    }

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
    buffered.note(e, int64_t(k));
    if (flush) {
      // The loads forwarded from the store now read memory as this flush
      // left it: later writes there conflict with them.
      auto exposed = exposed_by_flush.find(int64_t(e.aux));
      if (exposed != exposed_by_flush.end()) {
        for (int64_t l : exposed->second)
          each_byte(events[l].addr, events[l].size, [&](uint64_t b) {
            Byte& s = bytes[b];
            for (auto& r : s.reads)
              if (thread_[r] == thread_[l]) {
                r = l;
                return;
              }
            s.reads.push_back(l);
          });
        exposed_by_flush.erase(exposed);
      }
    }
  }
  // Optimal mode: a reversal takes in events after e_j, so it needs every
  // clock of the execution.
  for (const auto& [i, j] : races) race_sequence(events, n, i, j);
  // The process exit ends every thread, so it races with the next step of
  // each thread still enabled there, a step no event of this execution shows
  // (a detached thread the exit cut short: its crash was never explored).
  // Running that thread first is the reversal.
  if (!optimal_ && n > 0 && n - 1 >= from && OpKind(events[n - 1].kind) == OpKind::ProcessExit) {
    Position& pos = stack_[n - 1];
    pos.backtrack |= pos.enabled & ~bit(events[n - 1].thread);
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

namespace {

// Whether event b must follow event a (a before b in one execution; `a_index`:
// a's step there, `b_sfence`: for a flush b, the latest sfence of its thread
// before the store it commits) for a reason other than their accesses: same
// thread, thread creation, store buffer order.
bool ordered_apart(const shm::Event& ea, uint64_t a_index, const shm::Event& eb, int64_t b_sfence) {
  return ea.thread == eb.thread ||
         (OpKind(eb.kind) == OpKind::ThreadStart && OpKind(ea.kind) == OpKind::ThreadCreate && ea.aux == eb.thread) ||
         (OpKind(eb.kind) == OpKind::Flush && eb.aux == a_index) ||
         (OpKind(ea.kind) == OpKind::Flush && eb.thread < shm::kFlushActorBase && ea.owner == eb.thread && drains(eb)) ||
         (OpKind(ea.kind) == OpKind::Flush && OpKind(eb.kind) == OpKind::Flush && ea.owner == eb.owner &&
          int64_t(ea.aux) < b_sfence);
}

}  // namespace

int64_t DporStrategy::flush_bound(const shm::Event& e) const {
  return OpKind(e.kind) == OpKind::Flush && e.aux < sfence_before_.size() ? sfence_before_[e.aux] : -1;
}

std::vector<std::vector<bool>> DporStrategy::order_within(const shm::Event* events,
                                                          const std::vector<uint64_t>& v) const {
  std::vector<std::vector<bool>> before(v.size(), std::vector<bool>(v.size(), false));
  std::vector<Access> acc;
  for (uint64_t m : v) acc.push_back(access_of(events[m]));
  for (size_t b = 0; b < v.size(); ++b) {
    for (size_t a = 0; a < b; ++a) {
      if (!ordered_apart(events[v[a]], v[a], events[v[b]], flush_bound(events[v[b]])) && !conflicts(acc[a], acc[b]))
        continue;
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

// ---- Optimal mode

DporStrategy::Step DporStrategy::step_of(const shm::Event& e, const Access& a) const {
  Step s;
  s.thread = e.thread;
  s.access = a;
  s.event = e;
  if (auto v = value_found(e)) {
    s.has_input = true;
    s.input = *v;
  }
  return s;
}

namespace {

uint64_t identity(uint32_t thread, uint64_t history, const shm::Event& e) {
  uint64_t h = mix(mix(thread, history), e.site);
  return mix(mix(mix(h, e.addr), e.size), e.kind);
}

}  // namespace

void DporStrategy::remember_natures(const shm::Event* events, uint64_t n) {
  // Forgetting costs no class: a nature not known makes an insertion wait,
  // or (once its state is left) take the step as a write, at worst running
  // a redundant branch that ends blocked.
  if (natures_.size() > kMaxNatures) natures_.clear();
  for (uint64_t k = 0; k < n; ++k) {
    const shm::Event& e = events[k];
    if (!nature_varies(e)) continue;
    auto found = value_found(e);
    if (!found) continue;
    Seen& seen = natures_[identity(e.thread, history_[k], e)];
    bool writes = access_of(e).write_size != 0;
    bool known = false;
    for (const auto& [v, w] : seen.writes) known |= v == *found;
    if (!known) seen.writes.emplace_back(*found, writes);
    if (e.flags & shm::kFailed) seen.failed = true;
  }
}

DporStrategy::Answer DporStrategy::writes_at(const Step& s, uint64_t value, bool seen_all) const {
  const shm::Event& e = s.event;
  bool logged = access_of(e).write_size != 0;
  if (!nature_varies(e)) return logged ? Answer::Yes : Answer::No;
  uint64_t mask = size_mask(e.size);
  if (!mask) return Answer::Unknown;
  value &= mask;
  uint64_t r = e.value_read & mask, w = e.value_written & mask;
  if (value == r) return logged ? Answer::Yes : Answer::No;
  // What the same step (same thread, same history) did with that value in
  // an execution seen so far; a compare-exchange that succeeded on some
  // value expects that one.
  const Seen* seen = nullptr;
  if (auto it = natures_.find(identity(s.thread, s.history, e)); it != natures_.end()) seen = &it->second;
  std::optional<uint64_t> expected;
  if (seen) {
    for (const auto& [v, wrote] : seen->writes)
      if (v == value) return wrote ? Answer::Yes : Answer::No;
    bool cas = OpKind(e.kind) == OpKind::AtomicCas || seen->failed;
    for (const auto& [v, wrote] : seen->writes)
      if (cas && wrote) expected = v;
  }
  auto known = [](bool writes) { return writes ? Answer::Yes : Answer::No; };
  Answer a = Answer::Unknown;
  bool failed = e.flags & shm::kFailed;
  switch (RmwOp(e.rmw)) {
    case RmwOp::Xchg:
      a = known(value != w);
      break;
    case RmwOp::Or:  // w = r | operand: the operand holds w & ~r, maybe some of r
      if (w & ~r & ~value)
        a = Answer::Yes;
      else if (!(w & ~value))
        a = Answer::No;
      break;
    case RmwOp::And:  // w = r & operand: known where r has ones
      if (value & r & ~w)
        a = Answer::Yes;
      else if (!(value & ~(r & w)))
        a = Answer::No;
      break;
    case RmwOp::None:  // a compare-exchange (or, for an instruction, another op)
      if (!failed && (OpKind(e.kind) == OpKind::AtomicCas || (seen && seen->failed)))
        a = Answer::No;  // it expected r, and finds something else
      else if (expected)
        a = known(value == *expected);
      break;
    default:
      break;
  }
  if (a == Answer::Unknown && seen_all) {
    // Asked about a step next to one whose whole subtree has been explored:
    // had it only read with this value, that subtree would have run it so.
    ++inferred_;
    a = Answer::Yes;
  }
  return a;
}

bool DporStrategy::resolve(Step& s, uint64_t value, bool seen_all) const {
  Answer w = writes_at(s, value, seen_all);
  if (w == Answer::Unknown) return false;
  s.access = with_nature(s.event, w == Answer::Yes);
  s.unsure = false;
  s.has_input = true;
  s.input = value & size_mask(s.event.size);
  return true;
}

DporStrategy::Answer DporStrategy::conflict(Step& a, Step& b, bool seen_all) const {
  auto answer = [](bool c) { return c ? Answer::Yes : Answer::No; };
  if (!a.unsure && !b.unsure) return answer(conflicts(a.access, b.access));
  Access aw = a.unsure ? with_nature(a.event, true) : a.access, ar = a.unsure ? with_nature(a.event, false) : a.access;
  Access bw = b.unsure ? with_nature(b.event, true) : b.access, br = b.unsure ? with_nature(b.event, false) : b.access;
  bool wide = conflicts(aw, bw), narrow = conflicts(ar, br);
  if (wide == narrow) return answer(wide);
  // Only what an unsure step does decides, and both find the same value at
  // their bytes (nothing between them writes there: that would conflict).
  bool same = a.event.addr == b.event.addr && a.event.size == b.event.size;
  const Step* known = a.has_input ? &a : b.has_input ? &b : nullptr;
  if (same && known) {
    uint64_t value = known->input;
    if (a.unsure && !resolve(a, value, seen_all)) return Answer::Unknown;
    if (b.unsure && !resolve(b, value, seen_all)) return Answer::Unknown;
    return answer(conflicts(a.access, b.access));
  }
  if (seen_all) {
    ++inferred_;
    return Answer::Yes;
  }
  return Answer::Unknown;
}

DporStrategy::Answer DporStrategy::initial(Sequence& v, size_t b) const {
  // The first step left of its thread starts v iff no step left before it
  // must precede it (any path to it ends with a direct edge). Paths through
  // steps that are gone do not count.
  for (size_t a = 0; a < b; ++a) {
    if (v.gone[a]) continue;
    if (ordered_apart(v.steps[a].event, v.steps[a].index, v.steps[b].event, v.steps[b].flush_bound)) return Answer::No;
    // Nothing else in v touches the bytes e_i wrote, so only a partial
    // overlap with the unsure e_j can leave this open: keep the order then.
    if (conflict(v.steps[a], v.steps[b], false) != Answer::No) return Answer::No;
  }
  return Answer::Yes;
}

DporStrategy::Answer DporStrategy::weak_initial(Step& step, Sequence& v, bool seen_all) const {
  // A thread is a weak initial of v when v can start with its step: its
  // first step in v has no predecessor in v, or it has none in v and its
  // step commutes with all of v.
  for (size_t b = 0; b < v.steps.size(); ++b) {
    if (v.gone[b] || v.steps[b].thread != step.thread) continue;
    Answer a = initial(v, b);
    if (a == Answer::Yes && step.unsure && !v.steps[b].unsure) {
      // The same step at the same place: a node learns what it does.
      const Step& known = v.steps[b];
      step.access = known.access;
      step.unsure = false;
      step.has_input = known.has_input;
      step.input = known.input;
    }
    return a;
  }
  Answer r = Answer::Yes;
  for (size_t b = 0; b < v.steps.size(); ++b) {
    if (v.gone[b]) continue;
    Answer c = conflict(step, v.steps[b], seen_all);
    if (c == Answer::Yes) return Answer::No;
    if (c == Answer::Unknown) r = Answer::Unknown;
  }
  return r;
}

DporStrategy::Move DporStrategy::movable(const shm::Event* events, uint64_t n, uint64_t i, uint64_t j) const {
  // Every step of notdep(e_i) keeps what made it possible; e_j may lose it.
  // A wake-up needs its signal (unless the wait is timed: it times out), a
  // flush its store, a drain the flushes before it.
  for (int64_t f : enablers_[j])
    if (uint64_t(f) == i || happens_before(i, uint64_t(f))) return Move::Never;
  // The agent does not run a thread about to re-read, at the same site and
  // in the same state (kSameState), a location it read while nothing it read
  // since has been written (await, agent/ExecutionModel.h), unless no
  // thread could run otherwise (probe).
  const shm::Event& ej = events[j];
  if (!(ej.flags & shm::kSameState)) return Move::Yes;
  switch (OpKind(ej.kind)) {
    case OpKind::Load:
    case OpKind::AtomicLoad:
    case OpKind::Rmw:
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
      break;
    default:
      return Move::Yes;
  }
  // The thread's latest reads (a read-modify-write that left memory as it
  // was counts as one), newest first, back to its latest write.
  constexpr size_t kWindow = 8;  // agent's ThreadModel::kWindow
  std::vector<uint64_t> reads;
  bool match = false;
  for (uint64_t m = j; m-- > 0 && reads.size() < kWindow;) {
    const shm::Event& e = events[m];
    if (e.thread != ej.thread) continue;
    OpKind k = OpKind(e.kind);
    // As Runtime::note_memory classifies them.
    bool unchanged = (e.flags & shm::kFailed) || (e.rmw != uint8_t(RmwOp::None) && e.value_written == e.value_read);
    if (k == OpKind::Load || k == OpKind::AtomicLoad || (is_rmw(e) && unchanged)) {
      reads.push_back(m);
      if ((match = e.site == ej.site && e.addr == ej.addr)) break;
    } else if (is_rmw(e) || ((k == OpKind::Store || k == OpKind::AtomicStore) && !(e.flags & shm::kUnchanged))) {
      break;  // it wrote (into memory or its buffer): what it read before has changed
    }
  }
  if (!match) return Move::Yes;
  // Enabled after notdep(e_i) iff some write to one of those locations,
  // after its read, stays before e_j: e_i and what happens after it do not.
  for (uint64_t r : reads) {
    const shm::Event& er = events[r];
    for (uint64_t x = r + 1; x < n; ++x) {
      if (x == i || x == j || happens_before(i, x)) continue;
      Access ax = access_of(events[x]);
      if (ranges_overlap(ax.write_addr, ax.write_size, er.addr, er.size ? er.size : 1)) return Move::Yes;
    }
  }
  return Move::Await;
}

void DporStrategy::try_every_thread(uint64_t i) {
  // As source-DPOR does when no initial can run: a branch for every thread
  // enabled there, not tried and not asleep. What each does is unknown: it
  // conflicts with everything until it has run.
  Position& pos = stack_[i];
  uint64_t asleep = mask_of(pos.sleep), have = pos.done | asleep;
  for (const Node& c : pos.wakeup.children) have |= bit(c.step.thread);
  for (uint64_t m = pos.enabled & ~have; m; m &= m - 1) {
    Node node;
    node.step.thread = uint32_t(__builtin_ctzll(m));
    node.step.event.thread = uint16_t(node.step.thread);
    node.step.access.everything = true;
    pos.wakeup.children.push_back(std::move(node));
  }
}

void DporStrategy::race_sequence(const shm::Event* events, uint64_t n, uint64_t i, uint64_t j) {
  // A race whose reversal cannot run is none (the paper reverses only
  // those). One that may run only as a spin probe: try what can run there.
  switch (movable(events, n, i, j)) {
    case Move::Never:
      return;
    case Move::Await:
      try_every_thread(i);
      return;
    case Move::Yes:
      break;
  }
  // notdep(e_i, E): every later event of the whole execution that does not
  // happen after e_i, including those after e_j (they commute with it). Only
  // the events between them would make v depend on how the execution
  // happened to be interleaved: an event left out there can be the one that
  // keeps a sleeping thread from being a weak initial of v.
  std::vector<uint64_t> idx;
  for (uint64_t m = i + 1; m < n; ++m)
    if (m != j && !happens_before(i, m)) idx.push_back(m);
  idx.push_back(j);
  Sequence v;
  for (uint64_t m : idx) {
    Step& s = v.steps.emplace_back(step_of(events[m], access_of(events[m])));
    s.history = history_[m];
    s.index = m;
    s.flush_bound = flush_bound(events[m]);
  }
  v.gone.assign(idx.size(), false);

  // e_j now runs before e_i: where e_i wrote its bytes, it finds what was
  // there before e_i (known when e_i is a read-modify-write of them).
  Step& last = v.steps.back();
  Access ai = access_of(events[i]), aj = access_of(events[j]);
  if (ranges_overlap(ai.write_addr, ai.write_size, aj.read_addr, aj.read_size) ||
      ranges_overlap(ai.write_addr, ai.write_size, aj.read2_addr, aj.read2_size)) {
    last.has_input = false;
    if (nature_varies(events[j])) {
      last.unsure = true;
      auto before = value_found(events[i]);
      if (before && is_rmw(events[i]) && events[i].addr == events[j].addr && events[i].size == events[j].size)
        resolve(last, *before, false);
    }
  }
  if (!insert(i, v, false)) {
    pending_.push_back(Pending{i, std::move(v)});
    ++deferred_;
  }
}

bool DporStrategy::insert(uint64_t at, Sequence v, bool last) {
  // Redundant when a thread asleep at that state (or tried there before)
  // could start v: that part of the space is covered. Their subtrees have
  // been explored.
  const Position& pos = stack_[at];
  uint32_t current = pos.event.thread;
  for (const auto* list : {&pos.sleep, &pos.tried})
    for (const auto& s : *list) {
      if (list == &pos.tried && s.thread == current) continue;
      Step q = step_of(s.event, s.next);
      Answer a = weak_initial(q, v, true);
      if (a == Answer::Yes) return true;
      if (a == Answer::Unknown) return false;
    }

  auto empty = [&] {
    for (bool g : v.gone)
      if (!g) return false;
    return true;
  };
  auto remove_first = [&](uint32_t thread) {
    for (size_t b = 0; b < v.steps.size(); ++b)
      if (!v.gone[b] && v.steps[b].thread == thread) {
        v.gone[b] = true;
        return;
      }
  };
  // Follow the current path while its steps can start v (only a reversal
  // that waited gets past its first step: a fresh one starts with the step
  // it reverses); then the trees.
  uint64_t k = at;
  for (;;) {
    if (empty()) return true;
    Step here = step_of(stack_[k].event, access_of(stack_[k].event));
    Answer a = weak_initial(here, v, last);
    if (a == Answer::Unknown) return false;
    if (a == Answer::No) break;
    remove_first(here.thread);
    if (k + 1 >= stack_.size() || !stack_[k + 1].forced) return true;  // a leaf: covered
    ++k;
  }
  Node* node = &stack_[k].wakeup;
  for (;;) {
    if (empty()) return true;
    Node* next = nullptr;
    for (Node& child : node->children) {
      Answer a = weak_initial(child.step, v, false);
      if (a == Answer::Unknown) return false;
      if (a == Answer::Yes) {
        next = &child;
        break;
      }
    }
    if (!next) {
      // A new branch: the rest of v, in order.
      Node* tail = node;
      for (size_t b = 0; b < v.steps.size(); ++b) {
        if (v.gone[b]) continue;
        tail->children.push_back(Node{v.steps[b], {}});
        tail = &tail->children.back();
      }
      return true;
    }
    remove_first(next->step.thread);
    if (next->children.empty()) return true;  // a leaf: covered
    node = next;
  }
}

}  // namespace ctrl
