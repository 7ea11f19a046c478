#include "HbRaces.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "AccessShapes.h"
#include "Dependence.h"
#include "Operation.h"

namespace ctrl {

namespace {

using Clock = std::vector<uint32_t>;

void join(Clock& into, const uint32_t* from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

// Clocks kept by synchronisation objects and atomic writes, back to back
// (one allocation per execution, not one per byte).
class ClockArena {
 public:
  explicit ClockArena(size_t width) : width_(width) {}
  uint32_t keep(const Clock& c) {
    auto at = uint32_t(data_.size() / width_);
    data_.insert(data_.end(), c.begin(), c.end());
    return at;
  }
  const uint32_t* at(uint32_t index) const { return data_.data() + size_t(index) * width_; }

 private:
  size_t width_;
  std::vector<uint32_t> data_;
};

constexpr uint32_t kNoClock = UINT32_MAX;

// One earlier access to a byte.
struct Prior {
  uint32_t step;
  uint32_t thread;
  uint32_t epoch;  // the thread's own clock component at the access
  bool atomic;
};

// One location (a byte, or a whole access: AccessShapes.h).
struct Shadow {
  Prior write{UINT32_MAX, 0, 0, false};  // the last write (step UINT32_MAX: none)
  std::vector<Prior> reads;              // reads since it, one per thread
  uint32_t release = kNoClock;           // the clock the last atomic write released
  bool atomic_event = false;             // an atomic event of the execution touches it
  bool noted = false;                    // listed among what was treated as atomic
};

// A memory access of an event: bytes, direction, atomic by the event.
struct MemAccess {
  uint64_t addr;
  uint64_t size;
  bool reads, writes, atomic;
};

// The memory accesses of an event, in the order it makes them.
void accesses_of(const shm::Event& e, std::vector<MemAccess>& out) {
  out.clear();
  auto kind = OpKind(e.kind);
  bool failed = e.flags & shm::kFailed;
  uint64_t size = e.size ? e.size : 1;
  switch (kind) {
    case OpKind::AtomicLoad:
      out.push_back({e.addr, size, true, false, true});
      break;
    case OpKind::AtomicStore:
      out.push_back({e.addr, size, false, true, true});
      break;
    case OpKind::AtomicRmw:
    case OpKind::AtomicCas:
      out.push_back({e.addr, size, true, !failed, true});
      break;
    case OpKind::Load:
      out.push_back({e.addr, size, true, false, false});
      break;
    case OpKind::Store:
      if ((e.flags & shm::kInstruction) && e.aux)
        out.push_back({e.aux, size, true, false, false});  // string move source
      out.push_back({e.addr, size, false, true, false});
      break;
    case OpKind::Rmw:
      out.push_back({e.addr, size, true, !failed, bool(e.flags & shm::kLocked)});
      break;
    case OpKind::FutexWait:  // the kernel compares the word atomically
      out.push_back({e.addr, 4, true, false, true});
      break;
    default:
      break;
  }
}

// The synchronisation objects an event acts on (Dependence.h's, with a
// barrier's arrivals and leaves on one object), 0 for none.
std::pair<uint64_t, uint64_t> objects_of(const shm::Event& e) {
  auto kind = OpKind(e.kind);
  if (kind == OpKind::BarrierWait || kind == OpKind::BarrierLeave) return {(uint64_t(1) << 60) | e.addr, 0};
  if (kind == OpKind::ThreadStart || kind == OpKind::ThreadCreate || kind == OpKind::ProcessExit ||
      kind == OpKind::Flush)
    return {0, 0};
  if (!op_is_sync(kind) && kind != OpKind::ThreadJoin && kind != OpKind::ThreadExit) return {0, 0};
  Access a = access_of(e);
  return {a.object, a.object2};
}

// Every thread exit, for the creations after it (stack reuse).
constexpr uint64_t kExitedObject = (uint64_t(1) << 60) | (uint64_t(1) << 59);

const char* direction(const MemAccess& a) { return a.writes ? "write" : "read"; }

}  // namespace

HbRaceCheck find_hb_races(const shm::Event* events, uint64_t n, const DeclaredAtomics& declared,
                          const std::function<bool()>& stop,
                          const std::vector<std::pair<uint64_t, uint64_t>>* checked) {
  HbRaceCheck out;
  auto reported = [&](uint64_t addr) {
    if (!checked) return true;
    auto it = std::upper_bound(checked->begin(), checked->end(), std::make_pair(addr, UINT64_MAX));
    return it != checked->begin() && addr < std::prev(it)->second;
  };
  uint32_t threads = 1;
  for (uint64_t k = 0; k < n; ++k) {
    if (OpKind(events[k].kind) == OpKind::Flush) continue;
    threads = std::max<uint32_t>(threads, events[k].thread + 1u);
    if (OpKind(events[k].kind) == OpKind::ThreadCreate)
      threads = std::max<uint32_t>(threads, uint32_t(events[k].aux) + 1);
  }
  const size_t N = threads;

  // Locations (AccessShapes.h), and evidence (2): every location an atomic
  // event of this execution touches.
  std::vector<MemAccess> accesses;
  AccessShapes shapes;
  auto stopped = [&](uint64_t k) { return (k & 4095) == 0 && stop && stop() && (out.stopped = true); };
  for (uint64_t k = 0; k < n; ++k) {
    if (stopped(k)) return out;
    accesses_of(events[k], accesses);
    for (const MemAccess& a : accesses) shapes.note(a.addr, a.size);
  }
  std::unordered_map<uint64_t, Shadow> shadow;
  shadow.reserve(1024);
  auto for_locations = [&](const MemAccess& a, auto&& f) {
    if (shapes.whole(a.addr, a.size)) {
      f(a.addr);
      return;
    }
    for (uint64_t b = a.addr; b < a.addr + a.size; ++b)
      if (!f(b)) return;
  };
  for (uint64_t k = 0; k < n; ++k) {
    if (stopped(k)) return out;
    accesses_of(events[k], accesses);
    for (const MemAccess& a : accesses)
      if (a.atomic) for_locations(a, [&](uint64_t l) { return shadow[l].atomic_event = true; });
  }

  // What the report lists as treated as atomic.
  std::map<AtomicEvidence, size_t> listed;
  std::unordered_set<std::string> named;
  auto note = [&](AtomicEvidence why, uint64_t address, const std::string& name, Shadow* s) {
    if (s) {
      if (s->noted) return;
      s->noted = true;
    }
    if (!name.empty() && !named.insert(name).second) return;
    if (listed[why]++ >= HbRaceCheck::kMaxTreated) {
      ++out.treated_more;
      return;
    }
    out.treated.push_back({why, address, name});
  };

  std::vector<Clock> clocks(N, Clock(N, 0));
  for (uint32_t t = 0; t < N; ++t) clocks[t][t] = 1;
  std::vector<uint32_t> created(N, kNoClock);  // the creator's clock, per child
  std::unordered_map<uint64_t, uint32_t> objects;
  ClockArena arena(N);

  for (uint64_t k = 0; k < n && out.races.empty(); ++k) {
    if (stopped(k)) break;
    const shm::Event& e = events[k];
    auto kind = OpKind(e.kind);
    if (kind == OpKind::Flush) continue;
    const uint32_t t = e.thread;
    Clock& mine = clocks[t];

    // Acquire: what this event synchronises with.
    if (kind == OpKind::ThreadStart && created[t] != kNoClock) join(mine, arena.at(created[t]));
    if (kind == OpKind::ThreadCreate)
      if (auto it = objects.find(kExitedObject); it != objects.end()) join(mine, arena.at(it->second));
    auto [o1, o2] = objects_of(e);
    for (uint64_t o : {o1, o2})
      if (o)
        if (auto it = objects.find(o); it != objects.end()) join(mine, arena.at(it->second));

    accesses_of(e, accesses);
    bool released = false;  // an atomic write: its locations take this clock
    for (MemAccess& a : accesses) {
      const auto* v = declared.variable_in(a.addr, a.size);
      if (!a.atomic && (e.flags & shm::kInstruction)) {
        // Is this plain access an atomic one? Strongest evidence first.
        AtomicEvidence why = AtomicEvidence::None;
        std::string name;
        Shadow* first = nullptr;
        if (v) {
          why = v->why;
          name = v->name;
        } else {
          for_locations(a, [&](uint64_t l) {
            Shadow& s = shadow[l];
            if (!first) first = &s;
            if (s.atomic_event) why = AtomicEvidence::AtomicEvent;
            return why == AtomicEvidence::None;
          });
          if (why == AtomicEvidence::None)
            if (const auto* c = declared.code_at(e.site)) {
              why = AtomicEvidence::InlineScope;
              name = c->name;
            }
        }
        if (why != AtomicEvidence::None) {
          a.atomic = true;
          ++out.plain_atomic;
          note(why, a.addr, name, name.empty() ? first : nullptr);
        } else {
          ++out.plain_checked;
        }
      } else if (a.atomic) {
        if (v)
          note(v->why, a.addr, v->name, nullptr);
        else
          for_locations(a, [&](uint64_t l) {
            note(AtomicEvidence::AtomicEvent, a.addr, "", &shadow[l]);
            return false;
          });
      }
      // Reads-from: an atomic read acquires what the atomic write it reads released.
      if (a.atomic && a.reads) {
        uint32_t last = kNoClock;
        for_locations(a, [&](uint64_t l) {
          const Shadow& s = shadow[l];
          if (s.release != kNoClock && s.release != last) {
            last = s.release;
            join(mine, arena.at(last));
          }
          return true;
        });
      }
    }

    const uint32_t epoch = mine[t];
    for (const MemAccess& a : accesses) {
      auto ordered = [&](const Prior& p) { return p.thread == t || p.epoch <= mine[p.thread]; };
      auto conflict = [&](const Prior& p, bool p_writes) {
        if (p.step == UINT32_MAX || ordered(p) || (p.atomic && a.atomic) || !reported(a.addr)) return false;
        Strategy::ModelBug bug;
        bug.kind = BugKind::DataRace;
        bug.facts.accesses = {BugAccess{.step = p.step}, BugAccess{.step = k}};
        bug.facts.address = a.addr;
        bug.message = fmt::format(
            "data race: a {} {} by thread {} (step {}) and a {} {} by thread {} (step {}) are not ordered by "
            "happens-before",
            p.atomic ? "atomic" : "non-atomic", p_writes ? "write" : "read", p.thread, p.step + 1,
            a.atomic ? "atomic" : "non-atomic", direction(a), t, k + 1);
        out.races.push_back(std::move(bug));
        return true;
      };
      bool found = false;
      for_locations(a, [&](uint64_t l) {
        Shadow& s = shadow[l];
        found = conflict(s.write, true);
        if (a.writes && !found)
          for (const Prior& r : s.reads)
            if ((found = conflict(r, false))) break;
        if (found) return false;
        Prior me{uint32_t(k), t, epoch, a.atomic};
        if (a.writes) {
          s.write = me;
          s.reads.clear();
        } else {
          auto it = std::find_if(s.reads.begin(), s.reads.end(), [&](const Prior& r) { return r.thread == t; });
          if (it == s.reads.end())
            s.reads.push_back(me);
          else
            *it = me;
        }
        return true;
      });
      if (found) break;
      if (a.atomic && a.writes) released = true;
    }
    if (!out.races.empty()) break;

    // Release: objects and atomically written locations take this clock;
    // the thread's next events are after it.
    bool releases = o1 || o2 || released || kind == OpKind::ThreadCreate || kind == OpKind::ThreadExit;
    if (releases) {
      uint32_t at = arena.keep(mine);
      for (uint64_t o : {o1, o2})
        if (o) objects[o] = at;
      if (kind == OpKind::ThreadCreate && e.aux < N) created[e.aux] = at;
      if (kind == OpKind::ThreadExit) {
        auto [it, fresh] = objects.try_emplace(kExitedObject, at);
        if (!fresh) {
          Clock both(arena.at(it->second), arena.at(it->second) + N);
          join(both, mine.data());
          it->second = arena.keep(both);
        }
      }
      if (released)
        for (const MemAccess& a : accesses)
          if (a.atomic && a.writes) for_locations(a, [&](uint64_t l) { return (shadow[l].release = at), true; });
    }
    ++mine[t];
  }
  return out;
}

}  // namespace ctrl
