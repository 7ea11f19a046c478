#include "ExecutionModel.h"

#include <cstdio>

namespace ctrl::agent {

ExecutionModel::ExecutionModel() {
  mutexes_.reserve(64);
  sems_.reserve(16);
}

uint32_t ExecutionModel::add_thread(uint32_t creator) {
  uint32_t t = kNoThread;
  if (creator != kNoThread)
    for (uint32_t u = 0; u < count_ && t == kNoThread; ++u)
      if (u != creator && threads_[u].finished && threads_[u].joined_by == creator) t = u;
  if (t == kNoThread) {
    if (count_ >= shm::kMaxThreads) return kNoThread;
    t = count_++;
  }
  threads_[t] = ThreadModel{};
  threads_[t].used = true;
  threads_[t].pending.kind = OpKind::ThreadStart;
  return t;
}

uint32_t ExecutionModel::find_by_handle(uint64_t handle) const {
  if (handle == 0) return kNoThread;
  for (uint32_t t = 0; t < count_; ++t)
    if (threads_[t].handle == handle) return t;
  return kNoThread;
}

void ExecutionModel::thread_named(uint32_t t, uint64_t handle) {
  for (uint32_t u = 0; u < count_; ++u)
    if (threads_[u].handle == handle) threads_[u].handle = 0;
  threads_[t].handle = handle;
}

void ExecutionModel::thread_joined(uint32_t t, uint32_t joiner) {
  threads_[t].handle = 0;
  threads_[t].joined_by = joiner;
}

void ExecutionModel::thread_detached(uint32_t t) {
  threads_[t].detached = true;
  if (threads_[t].finished) threads_[t].handle = 0;
}

bool ExecutionModel::mutex_can_lock(uint32_t t, uint64_t m) const {
  auto it = mutexes_.find(m);
  if (it == mutexes_.end() || it->second.owner < 0) return true;
  // A recursive relock succeeds; an error-checking one returns EDEADLK at
  // once. Both proceed. A normal mutex relocked by its owner never does.
  return uint32_t(it->second.owner) == t && it->second.type != MutexType::Normal;
}

int32_t ExecutionModel::mutex_owner(uint64_t m) const {
  auto it = mutexes_.find(m);
  return it == mutexes_.end() ? -1 : it->second.owner;
}

bool ExecutionModel::rw_can_read(uint64_t rw) const {
  auto it = rwlocks_.find(rw);
  return it == rwlocks_.end() || it->second.writer < 0;
}

bool ExecutionModel::rw_can_write(uint64_t rw) const {
  auto it = rwlocks_.find(rw);
  return it == rwlocks_.end() || (it->second.writer < 0 && it->second.readers == 0);
}

uint64_t ExecutionModel::barrier_phase(uint64_t b) const {
  auto it = barriers_.find(b);
  return it == barriers_.end() ? 0 : it->second.phase;
}

bool ExecutionModel::barrier_open(uint64_t b, uint64_t phase) const {
  auto it = barriers_.find(b);
  return it != barriers_.end() && it->second.phase > phase;
}

bool ExecutionModel::sem_available(uint64_t s) const {
  auto it = sems_.find(s);
  return it != sems_.end() && it->second > 0;
}

bool ExecutionModel::enabled(uint32_t t) const {
  const ThreadModel& th = threads_[t];
  if (!th.used || th.finished || awaiting(t)) return false;
  const PendingOp& op = th.pending;
  if (op.drains && (buffered_ >> t & 1)) return false;
  switch (op.kind) {
    case OpKind::None:
      return false;
    case OpKind::ThreadJoin:
      return op.target < count_ && threads_[op.target].finished;
    case OpKind::MutexLock:
      return mutex_can_lock(t, op.addr);
    case OpKind::CondReacquire:
      return (th.signalled || op.timed) && mutex_can_lock(t, op.addr2);
    case OpKind::RwReadLock:
      return rw_can_read(op.addr);
    case OpKind::RwWriteLock:
      return rw_can_write(op.addr);
    case OpKind::BarrierLeave:
      return barrier_open(op.addr, op.phase);
    case OpKind::SemWait:
      return sem_available(op.addr);
    case OpKind::FutexWoken:
      return th.signalled || op.timed;
    case OpKind::FdWait:
    case OpKind::SignalWait:
    case OpKind::ChildWait:
      return th.ready || th.external || op.timed;
    default:
      return true;
  }
}

uint64_t ExecutionModel::enabled_mask() const {
  uint64_t mask = 0;
  for (uint32_t t = 0; t < count_; ++t)
    if (enabled(t)) mask |= uint64_t(1) << t;
  return mask;
}

bool ExecutionModel::all_finished() const {
  for (uint32_t t = 0; t < count_; ++t)
    if (!threads_[t].finished) return false;
  return true;
}

uint32_t ExecutionModel::blocker(uint32_t t) const {
  const PendingOp& op = threads_[t].pending;
  switch (op.kind) {
    case OpKind::ThreadJoin:
      return op.target;
    case OpKind::MutexLock: {
      int32_t o = mutex_owner(op.addr);
      return o < 0 ? kNoThread : uint32_t(o);
    }
    case OpKind::CondReacquire: {
      if (!threads_[t].signalled && !op.timed) return kNoThread;
      int32_t o = mutex_owner(op.addr2);
      return o < 0 ? kNoThread : uint32_t(o);
    }
    case OpKind::RwReadLock:
    case OpKind::RwWriteLock: {
      auto it = rwlocks_.find(op.addr);
      return it == rwlocks_.end() || it->second.writer < 0 ? kNoThread : uint32_t(it->second.writer);
    }
    default:
      return kNoThread;
  }
}

void ExecutionModel::mutex_seen(uint64_t m, MutexType type) {
  auto [it, inserted] = mutexes_.try_emplace(m);
  if (inserted) it->second.type = type;
}

void ExecutionModel::sem_seen(uint64_t s, int64_t value) { sems_.try_emplace(s, value); }

void ExecutionModel::barrier_init(uint64_t b, uint32_t count) {
  Barrier& bar = barriers_[b];
  bar.count = count;
  bar.arrived = 0;
}

void ExecutionModel::mutex_locked(uint32_t t, uint64_t m) {
  Mutex& mx = mutexes_[m];
  if (mx.owner == int32_t(t)) {
    if (mx.type == MutexType::Recursive) ++mx.depth;
    return;
  }
  mx.owner = int32_t(t);
  mx.depth = 1;
}

void ExecutionModel::mutex_unlocked(uint32_t t, uint64_t m) {
  Mutex& mx = mutexes_[m];
  if (mx.owner != int32_t(t)) {
    // glibc lets anyone unlock a normal mutex; the checked kinds refuse (EPERM).
    if (mx.type == MutexType::Normal) {
      mx.owner = -1;
      mx.depth = 0;
    }
    return;
  }
  if (--mx.depth == 0) mx.owner = -1;
}

void ExecutionModel::cond_wait_begin(uint32_t t, uint64_t c, uint64_t m, bool timed, uint64_t site) {
  Mutex& mx = mutexes_[m];
  if (mx.owner == int32_t(t)) {
    mx.owner = -1;
    mx.depth = 0;
  }
  ThreadModel& th = threads_[t];
  th.signalled = false;
  th.wait_seq = next_wait_seq_++;
  th.pending = PendingOp{OpKind::CondReacquire, c, m, site, kNoThread, timed, 0};
}

uint32_t ExecutionModel::cond_signal(uint64_t c) {
  uint32_t best = kNoThread;
  for (uint32_t t = 0; t < count_; ++t) {
    const ThreadModel& th = threads_[t];
    if (th.finished || th.signalled || th.pending.kind != OpKind::CondReacquire || th.pending.addr != c)
      continue;
    if (best == kNoThread || th.wait_seq < threads_[best].wait_seq) best = t;
  }
  if (best != kNoThread) threads_[best].signalled = true;
  return best;
}

uint32_t ExecutionModel::cond_broadcast(uint64_t c) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < count_; ++t) {
    ThreadModel& th = threads_[t];
    if (th.finished || th.signalled || th.pending.kind != OpKind::CondReacquire || th.pending.addr != c)
      continue;
    th.signalled = true;
    ++n;
  }
  return n;
}

void ExecutionModel::rw_read_locked(uint32_t, uint64_t rw) { ++rwlocks_[rw].readers; }

void ExecutionModel::rw_write_locked(uint32_t t, uint64_t rw) { rwlocks_[rw].writer = int32_t(t); }

void ExecutionModel::rw_unlocked(uint32_t t, uint64_t rw) {
  RwLock& l = rwlocks_[rw];
  if (l.writer == int32_t(t))
    l.writer = -1;
  else if (l.readers > 0)
    --l.readers;
}

bool ExecutionModel::barrier_arrive(uint32_t t, uint64_t b, uint64_t site) {
  Barrier& bar = barriers_[b];
  if (++bar.arrived >= bar.count) {
    bar.arrived = 0;
    ++bar.phase;
    return true;
  }
  threads_[t].pending = PendingOp{OpKind::BarrierLeave, b, 0, site, kNoThread, false, bar.phase};
  return false;
}

void ExecutionModel::futex_wait_begin(uint32_t t, uint64_t addr, uint32_t value, uint32_t bitset, bool timed,
                                      uint64_t site) {
  ThreadModel& th = threads_[t];
  th.signalled = false;
  th.wait_seq = next_wait_seq_++;
  PendingOp op{OpKind::FutexWoken, addr, 0, site, kNoThread, timed, 0, 4};
  op.value = value;
  op.bitset = bitset;
  th.pending = op;
}

namespace {

// Up to `n` of the oldest unwoken waiters on `addr` whose bitset meets
// `bitset`, oldest first.
template <typename Fn>
uint32_t for_oldest_waiters(ThreadModel* threads, uint32_t count, uint64_t addr, uint32_t bitset, uint32_t n, Fn fn) {
  uint32_t done = 0;
  while (done < n) {
    uint32_t best = kNoThread;
    for (uint32_t t = 0; t < count; ++t) {
      const ThreadModel& th = threads[t];
      if (th.finished || th.signalled || th.pending.kind != OpKind::FutexWoken || th.pending.addr != addr ||
          !(th.pending.bitset & bitset))
        continue;
      if (best == kNoThread || th.wait_seq < threads[best].wait_seq) best = t;
    }
    if (best == kNoThread) break;
    fn(threads[best]);
    ++done;
  }
  return done;
}

}  // namespace

uint32_t ExecutionModel::futex_wake(uint64_t addr, uint32_t bitset, uint32_t n) {
  return for_oldest_waiters(threads_, count_, addr, bitset, n, [](ThreadModel& th) { th.signalled = true; });
}

uint32_t ExecutionModel::futex_requeue(uint64_t addr, uint64_t addr2, uint32_t n, uint32_t moved, uint32_t& woken) {
  woken = futex_wake(addr, ~0u, n);
  if (addr2 == addr) return woken;
  // Moved waiters keep their age: a later wake of addr2 still takes the
  // oldest first, as the kernel's queue order does.
  uint32_t m = for_oldest_waiters(threads_, count_, addr, ~0u, moved, [&](ThreadModel& th) { th.pending.addr = addr2; });
  return woken + m;
}

void ExecutionModel::kernel_wait_begin(uint32_t t, const PendingOp& op) {
  ThreadModel& th = threads_[t];
  th.pending = op;
  th.ready = false;
  th.external = false;
  th.wait_seq = next_wait_seq_++;
}

uint32_t ExecutionModel::oldest_kernel_waiter() const {
  uint32_t best = kNoThread;
  for (uint32_t t = 0; t < count_; ++t) {
    const ThreadModel& th = threads_[t];
    if (th.finished || !is_kernel_wait(th.pending.kind) || th.ready || th.external) continue;
    if (best == kNoThread || th.wait_seq < threads_[best].wait_seq) best = t;
  }
  return best;
}

void ExecutionModel::sem_acquired(uint64_t s) { --sems_[s]; }

void ExecutionModel::sem_posted(uint64_t s) { ++sems_[s]; }

int ExecutionModel::repeated_read(uint32_t t) const {
  const ThreadModel& th = threads_[t];
  const PendingOp& op = th.pending;
  switch (op.kind) {
    case OpKind::Load:
    case OpKind::Rmw:
    case OpKind::AtomicLoad:
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
      break;
    default:
      return -1;
  }
  bool unchanged = false;
  int at = latest_visit(t, unchanged);
  return at >= 0 && unchanged && op.state != 0 && th.reads[at].state == op.state ? at : -1;
}

int ExecutionModel::latest_visit(uint32_t t, bool& unchanged) const {
  // Newest first, back to the entry of the pending operation's site and
  // location; `unchanged`: no entry from there to the newest was written.
  const ThreadModel& th = threads_[t];
  unchanged = true;
  for (uint32_t back = 1; back <= ThreadModel::kWindow; ++back) {
    uint32_t at = (th.next_read + ThreadModel::kWindow - back) % ThreadModel::kWindow;
    const auto& r = th.reads[at];
    unchanged = unchanged && r.unchanged;
    if (r.site == th.pending.site && r.addr == th.pending.addr) return int(at);
  }
  return -1;
}

bool ExecutionModel::same_state_repeat(uint32_t t) const {
  const ThreadModel& th = threads_[t];
  bool unchanged = false;
  int at = latest_visit(t, unchanged);
  return at >= 0 && th.pending.state != 0 && th.reads[at].state == th.pending.state;
}

void ExecutionModel::memory_loaded(uint32_t t, uint64_t site, uint64_t addr, uint32_t size) {
  ThreadModel& th = threads_[t];
  bool repeated = repeated_read(t) >= 0;
  if (th.probe) th.probe = repeated ? th.probe - 1 : 0;  // anything else: it was not a spin
  if (!repeated) th.spin_confirmed = false;
  th.reads[th.next_read] = ThreadModel::RecentRead{site, addr, th.pending.state, size ? size : 1, true};
  th.next_read = (th.next_read + 1) % ThreadModel::kWindow;
}

void ExecutionModel::memory_written(uint64_t addr, uint32_t size, uint32_t writer, bool visible) {
  uint64_t end = addr + (size ? size : 1);
  for (uint32_t u = 0; u < count_; ++u)
    for (auto& r : threads_[u].reads)
      if (r.unchanged && (u == writer || (visible && addr < r.addr + r.size && r.addr < end))) {
        r.unchanged = false;
        threads_[u].spin_confirmed = false;
      }
}

void ExecutionModel::own_memory_written(uint32_t t) {
  ThreadModel& th = threads_[t];
  for (auto& r : th.reads) r.unchanged = false;
  th.spin_confirmed = false;
}

bool ExecutionModel::start_spin_probe() {
  bool any = false;
  for (uint32_t t = 0; t < count_; ++t) {
    if (threads_[t].finished || threads_[t].spin_confirmed || !awaiting(t)) continue;
    threads_[t].probe = kSpinProbe + 1;
    any = true;
  }
  return any;
}

void ExecutionModel::check_probe(uint32_t t) {
  ThreadModel& th = threads_[t];
  if (th.probe != 1) return;
  th.probe = 0;
  th.spin_confirmed = true;
}

uint32_t ExecutionModel::confirmed_spinner() const {
  for (uint32_t t = 0; t < count_; ++t)
    if (!threads_[t].finished && threads_[t].spin_confirmed && awaiting(t)) return t;
  return kNoThread;
}

bool ExecutionModel::awaiting(uint32_t t) const {
  return !threads_[t].probe && repeated_read(t) >= 0 && !holds_what_others_wait_for(t);
}

bool ExecutionModel::holds_what_others_wait_for(uint32_t t) const {
  for (uint32_t u = 0; u < count_; ++u)
    if (u != t && !threads_[u].finished && threads_[u].pending.kind != OpKind::ThreadJoin && blocker(u) == t)
      return true;
  return false;
}

void ExecutionModel::thread_finished(uint32_t t) {
  threads_[t].finished = true;
  if (threads_[t].detached) threads_[t].handle = 0;
  threads_[t].pending = PendingOp{};
}

std::string ExecutionModel::describe_wait(uint32_t t) const {
  const PendingOp& op = threads_[t].pending;
  char buf[160];
  uint32_t b = blocker(t);
  if (awaiting(t) || threads_[t].probe) {
    snprintf(buf, sizeof buf, "spins at %#lx re-reading %#lx, which no thread writes any more",
             (unsigned long)threads_[t].pending.site, (unsigned long)threads_[t].pending.addr);
    return buf;
  }
  switch (op.kind) {
    case OpKind::ThreadJoin:
      snprintf(buf, sizeof buf, "joins T%u, which never finishes", op.target);
      break;
    case OpKind::MutexLock:
      if (b == t)
        snprintf(buf, sizeof buf, "locks mutex %#lx, which it already holds", (unsigned long)op.addr);
      else
        snprintf(buf, sizeof buf, "waits for mutex %#lx held by T%u", (unsigned long)op.addr, b);
      break;
    case OpKind::CondReacquire:
      if (!threads_[t].signalled)
        snprintf(buf, sizeof buf, "waits on condition %#lx that is never signalled", (unsigned long)op.addr);
      else
        snprintf(buf, sizeof buf, "was signalled on %#lx, waits for mutex %#lx held by T%u",
                 (unsigned long)op.addr, (unsigned long)op.addr2, b);
      break;
    case OpKind::RwReadLock:
    case OpKind::RwWriteLock:
      snprintf(buf, sizeof buf, "waits for rwlock %#lx", (unsigned long)op.addr);
      break;
    case OpKind::BarrierLeave:
      snprintf(buf, sizeof buf, "waits at barrier %#lx that never opens", (unsigned long)op.addr);
      break;
    case OpKind::SemWait:
      snprintf(buf, sizeof buf, "waits on semaphore %#lx that stays 0", (unsigned long)op.addr);
      break;
    case OpKind::FdWait:
    case OpKind::SignalWait:
    case OpKind::ChildWait:
      snprintf(buf, sizeof buf, "blocked in system call %u (%s %ld)", op.value, op_name(op.kind), long(op.addr));
      break;
    case OpKind::FutexWoken:
      snprintf(buf, sizeof buf, "blocked in futex_wait on %#lx (value %u), which no thread wakes",
               (unsigned long)op.addr, op.value);
      break;
    default:
      snprintf(buf, sizeof buf, "is at %s", op_name(op.kind));
  }
  return buf;
}

}  // namespace ctrl::agent
