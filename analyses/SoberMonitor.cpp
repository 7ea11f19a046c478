#include "SoberMonitor.h"

#include <algorithm>
#include <unordered_map>

#include "AccessShapes.h"
#include "Dependence.h"
#include "Operation.h"

namespace ctrl {

namespace {

enum class Op { Ld, St, Il };

using Clock = std::vector<uint32_t>;

void join(Clock& into, const Clock& from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

bool leq(const uint32_t* a, const Clock& b) {
  for (size_t i = 0; i < b.size(); ++i)
    if (a[i] > b[i]) return false;
  return true;
}

// The clocks kept per write and per buffered store, back to back: one
// allocation per execution instead of one per byte written (the monitor runs
// between executions, on the exploration's critical path).
class ClockArena {
 public:
  uint32_t keep(const Clock& c) {
    auto at = uint32_t(data_.size());
    data_.insert(data_.end(), c.begin(), c.end());
    return at;
  }
  const uint32_t* at(uint32_t offset) const { return data_.data() + offset; }

 private:
  std::vector<uint32_t> data_;
};

// Per-thread locations for fences and the process exit: never shared, so an
// il there orders only the thread's own events (a full fence).
uint64_t private_location(uint32_t thread) { return (uint64_t(1) << 62) | thread; }
// (Thread objects and private locations are outside any address range.)

struct MemoryOp {
  Op op;
  uint64_t location;
};

// The paper's operations an event performs, in order: range(op, addr, size)
// for memory, object(op, location) for the rest.
template <class Range, class Object>
void operations_of(const shm::Event& e, Range&& range, Object&& object) {
  auto kind = OpKind(e.kind);
  bool locked = e.flags & shm::kLocked;
  switch (kind) {
    case OpKind::Load:
    case OpKind::AtomicLoad:
      range(Op::Ld, e.addr, e.size);
      break;
    case OpKind::Store:
      if ((e.flags & shm::kInstruction) && e.aux) range(Op::Ld, e.aux, e.size);  // string move source
      range(Op::St, e.addr, e.size);
      break;
    case OpKind::AtomicStore:
      range(MemOrder(e.order) == MemOrder::SeqCst ? Op::Il : Op::St, e.addr, e.size);
      break;
    case OpKind::Rmw:
      if (locked) {
        range(Op::Il, e.addr, e.size);
      } else {
        range(Op::Ld, e.addr, e.size);
        if (!(e.flags & shm::kFailed)) range(Op::St, e.addr, e.size);
      }
      break;
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
      range(Op::Il, e.addr, e.size);
      break;
    case OpKind::Fence:
      // mfence, the locked fence idiom and seq_cst fences order stores before
      // loads; lfence, sfence and weaker fences do not on x86.
      if (MemOrder(e.order) == MemOrder::SeqCst) object(Op::Il, private_location(e.thread));
      break;
    case OpKind::ThreadCreate:
      object(Op::Il, thread_object(uint32_t(e.aux)));
      break;
    case OpKind::ThreadStart:
    case OpKind::ThreadExit:
      object(Op::Il, thread_object(e.thread));
      break;
    case OpKind::ThreadJoin:
      object(Op::Il, thread_object(uint32_t(e.aux)));
      break;
    case OpKind::ProcessExit:
    case OpKind::Yield:
    case OpKind::ThreadDetach:
    case OpKind::None:
    case OpKind::Count:
      break;
    case OpKind::CondWait:
    case OpKind::CondTimedWait:
    case OpKind::CondReacquire:
      object(Op::Il, e.addr);
      if (e.aux) object(Op::Il, e.aux);
      break;
    default:  // the other synchronisation calls, on their object
      object(Op::Il, e.addr);
      break;
  }
}

void accesses_of(const shm::Event& e, const AccessShapes& shapes, std::vector<MemoryOp>& out) {
  out.clear();
  operations_of(
      e,
      [&](Op op, uint64_t addr, uint64_t size) {
        if (shapes.whole(addr, size)) {
          out.push_back({op, addr});
          return;
        }
        if (size == 0) size = 1;
        for (uint64_t b = addr; b < addr + size; ++b) out.push_back({op, b});
      },
      [&](Op op, uint64_t location) { out.push_back({op, location}); });
}

struct Write {
  uint32_t thread;
  uint32_t epoch;   // the writer's own happens-before component at the write
  uint32_t relaxed;  // its relaxed happens-before timestamp (2N wide, in the arena)
  uint64_t event;
};

struct Location {
  std::vector<Write> writes;  // coherence order: index c-1 holds value c
  Clock hb_writes, hb_reads;  // happens-before of everything written / read here
  Clock mc2;                  // relaxed: what a write here inherits
  std::vector<Clock> mc1;     // relaxed: what a load by each thread inherits
};

}  // namespace

std::optional<Borderline> find_borderline(const shm::Event* events, uint64_t n, const std::atomic<bool>* cancel) {
  uint32_t threads = 1;
  for (uint64_t k = 0; k < n; ++k) threads = std::max<uint32_t>(threads, events[k].thread + 1u);
  for (uint64_t k = 0; k < n; ++k)
    if (OpKind(events[k].kind) == OpKind::ThreadCreate) threads = std::max<uint32_t>(threads, uint32_t(events[k].aux) + 1);
  const size_t N = threads;

  std::vector<Clock> hb(N, Clock(N, 0));          // each thread's clock, its last event included
  std::vector<Clock> lc(N, Clock(2 * N, 0));      // relaxed: before the thread's next load
  std::vector<Clock> sc(N, Clock(2 * N, 0));      // relaxed: before its next store
  // The thread's stores since its last locked operation or fence (what
  // drains a store buffer), with their clocks: candidates for the store a
  // buffer could still hold when the load runs.
  // (event, its happens-before clock: N wide, in the arena)
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> recent_stores(N);
  std::unordered_map<uint64_t, Location> locations;
  locations.reserve(256);
  std::vector<MemoryOp> accesses;
  AccessShapes shapes;
  for (uint64_t k = 0; k < n; ++k)
    operations_of(events[k], [&](Op, uint64_t addr, uint64_t size) { shapes.note(addr, size); }, [](Op, uint64_t) {});
  ClockArena arena;
  Clock ts(2 * N, 0);

  auto location = [&](uint64_t a) -> Location& {
    auto [it, inserted] = locations.try_emplace(a);
    if (inserted) {
      it->second.hb_writes.assign(N, 0);
      it->second.hb_reads.assign(N, 0);
      it->second.mc2.assign(2 * N, 0);
      it->second.mc1.assign(N, Clock(2 * N, 0));
    }
    return it->second;
  };

  for (uint64_t k = 0; k < n; ++k) {
    // Every 256 events: a load may walk back over many writes, and 4,096
    // events of that took a second on a loaded machine after a stop.
    if (cancel && (k & 255) == 0 && cancel->load(std::memory_order_relaxed)) return std::nullopt;
    const shm::Event& e = events[k];
    const uint32_t p = e.thread;
    accesses_of(e, shapes, accesses);
    for (const MemoryOp& acc : accesses) {
      Location& loc = location(acc.location);
      if (acc.op == Op::Ld) {
        // The check (Fig. 2): walk back from the value this load reads.
        for (size_t c = loc.writes.size(); c > 0; --c) {
          const Write& w = loc.writes[c - 1];
          if (w.thread == p) break;               // forwarding: never older than its own store
          if (leq(arena.at(w.relaxed), lc[p])) break;  // even TSO orders it before the last read
          if (w.epoch <= hb[p][w.thread]) {       // SC orders it before the thread's last event
            uint64_t delayed = UINT64_MAX;
            for (const auto& [index, clock] : recent_stores[p])
              if (w.epoch <= arena.at(clock)[w.thread]) {
                delayed = index;
                break;
              }
            return Borderline{k, w.event, delayed, acc.location};
          }
        }
      }
      // Happens-before: conflicts with earlier accesses here.
      Clock& mine = hb[p];
      join(mine, loc.hb_writes);
      if (acc.op != Op::Ld) join(mine, loc.hb_reads);
      ++mine[p];
      if (acc.op != Op::St) join(loc.hb_reads, mine);
      if (acc.op != Op::Ld) loc.hb_writes = mine;

      // Relaxed happens-before (Fig. 3): a store is not ordered before the
      // same thread's later loads.
      switch (acc.op) {
        case Op::Ld: {
          ts = lc[p];
          // A load of the thread's own store, with nothing since that drains
          // its buffer, may be forwarded under TSO: it is then not ordered
          // after other threads' writes here (Fig. 3 orders it after them).
          bool own_buffered = false;
          if (!loc.writes.empty() && loc.writes.back().thread == p)
            for (const auto& rs : recent_stores[p])
              if (rs.first == loc.writes.back().event) own_buffered = true;
          if (!own_buffered) join(ts, loc.mc1[p]);
          ++ts[2 * p];
          join(lc[p], ts);
          join(loc.mc2, ts);
          break;
        }
        case Op::St:
          ts = sc[p];
          join(ts, lc[p]);
          join(ts, loc.mc2);
          ++ts[2 * p + 1];
          for (uint32_t q = 0; q < N; ++q)
            if (q != p) join(loc.mc1[q], ts);
          join(loc.mc2, ts);
          join(sc[p], ts);
          recent_stores[p].emplace_back(k, arena.keep(mine));
          break;
        case Op::Il:
          ts = sc[p];
          join(ts, lc[p]);
          join(ts, loc.mc2);
          ++ts[2 * p];
          ++ts[2 * p + 1];
          for (uint32_t q = 0; q < N; ++q) join(loc.mc1[q], ts);
          join(loc.mc2, ts);
          join(lc[p], ts);
          join(sc[p], ts);
          recent_stores[p].clear();  // a locked operation drains the buffer
          break;
      }
      if (acc.op != Op::Ld) loc.writes.push_back(Write{p, mine[p], arena.keep(ts), k});
    }
  }
  return std::nullopt;
}

Bug borderline_bug(const Borderline& b) {
  Bug bug;
  bug.kind = BugKind::TsoUnsafe;
  bug.facts.address = b.address;
  bug.facts.accesses = {BugAccess{.step = b.load}, BugAccess{.step = b.missed_write}};
  if (b.delayed_store != UINT64_MAX) bug.facts.accesses.push_back(BugAccess{.step = b.delayed_store});
  return bug;
}

}  // namespace ctrl
