// What DPOR reads off logged events, shared by the source-mode analysis
// (DporStrategy.cpp) and Optimal-DPOR (DporOptimal.cpp): which events wait
// for a store buffer to drain, which read-modify-writes may only read, the
// values the log holds in full, and the orders that do not come from
// conflicts (program order, creation, a barrier's opening, store buffers).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "Dependence.h"

namespace ctrl::dpor {

inline uint64_t bit(uint32_t t) { return uint64_t(1) << t; }

// Whether an event had to wait for its thread's store buffer to drain.
inline bool drains(const shm::Event& e) {
  auto k = OpKind(e.kind);
  if (op_only_reads(k) || k == OpKind::Yield || k == OpKind::ThreadStart) return false;
  if (op_may_buffer(k)) return !(e.flags & shm::kBuffered);
  if (k == OpKind::Fence) return MemOrder(e.order) == MemOrder::SeqCst;
  return true;
}

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

inline uint64_t size_mask(uint32_t size) {
  switch (size) {
    case 1: return 0xff;
    case 2: return 0xffff;
    case 4: return 0xffffffffull;
    case 8: return ~uint64_t(0);
    default: return 0;  // odd sizes and wide accesses: values not logged in full
  }
}

inline bool is_rmw(const shm::Event& e) { return op_is_rmw(OpKind(e.kind)); }

// Whether the event is a read-modify-write whose nature (Dependence.h: a
// read when it leaves memory as it was) depends on the value it finds.
// Additions, subtractions and xors change memory by the same amount
// wherever they run; an Rmw without RmwOp may be a compare-exchange.
inline bool nature_varies(const shm::Event& e) {
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
inline std::optional<uint64_t> value_found(const shm::Event& e) {
  uint64_t mask = size_mask(e.size);
  if (!mask || (e.flags & (shm::kBuffered | shm::kForwarded))) return std::nullopt;
  auto k = OpKind(e.kind);
  if (!op_reads_memory(k) || (k == OpKind::Load && e.aux)) return std::nullopt;
  return e.value_read & mask;
}

// The access of read-modify-write `e` when it does (or does not) write.
inline Access with_nature(const shm::Event& e, bool writes) {
  return access_of(OpKind(e.kind), e.addr, e.size, e.aux, !writes, e.thread, e.flags & shm::kInstruction);
}

// Whether event b must follow event a (a before b in one execution; `a_index`:
// a's step there, `b_sfence`: for a flush b, the latest sfence of its thread
// before the store it commits) for a reason other than their accesses: same
// thread, thread creation, a barrier's opening, store buffer order.
inline bool ordered_apart(const shm::Event& ea, uint64_t a_index, const shm::Event& eb, int64_t b_sfence) {
  return ea.thread == eb.thread ||
         (OpKind(eb.kind) == OpKind::ThreadStart && OpKind(ea.kind) == OpKind::ThreadCreate && ea.aux == eb.thread) ||
         (OpKind(eb.kind) == OpKind::BarrierLeave && OpKind(ea.kind) == OpKind::BarrierWait && ea.aux &&
          ea.addr == eb.addr && ea.value_read == eb.value_read) ||
         (OpKind(eb.kind) == OpKind::Flush && eb.aux == a_index) ||
         (OpKind(ea.kind) == OpKind::Flush && eb.thread < shm::kFlushActorBase && ea.owner == eb.thread && drains(eb)) ||
         (OpKind(ea.kind) == OpKind::Flush && OpKind(eb.kind) == OpKind::Flush && ea.owner == eb.owner &&
          int64_t(ea.aux) < b_sfence);
}

// A store or read-modify-write (what a buffer may hold).
inline bool is_write_kind(const shm::Event& e) { return op_may_buffer(OpKind(e.kind)); }

// The stores in each thread's buffers along an execution (TSO/PSO), as its
// events show them: a buffered store enters, its flush (aux = the store)
// leaves.
//
// Kept by its owner from one execution to the next (clear()): noting an
// execution allocates nothing once the buffers have grown.
class BufferedStores {
 public:
  // What one note() did, so that it can be undone (DporStrategy's
  // analysis rewinds to a branch point).
  struct Change {
    enum Kind : uint8_t { None, Pushed, Erased } kind = None;
    uint32_t thread = 0;
    uint32_t index = 0;
    int64_t store = 0;
    uint64_t addr = 0, size = 0;
  };
  void note(const shm::Event& e, int64_t k) { (void)note_change(e, k); }
  Change note_change(const shm::Event& e, int64_t k);
  void undo(const Change& c) {
    if (c.kind == Change::Pushed) stores_[c.thread].pop_back();
    if (c.kind == Change::Erased)
      stores_[c.thread].insert(stores_[c.thread].begin() + c.index, Store{c.store, c.addr, c.size});
  }
  void clear() {
    for (auto& s : stores_) s.clear();
  }
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

inline BufferedStores::Change BufferedStores::note_change(const shm::Event& e, int64_t k) {
  Change c;
  if (OpKind(e.kind) == OpKind::Flush) {
    if (e.owner >= shm::kFlushActorBase) return c;
    auto& pending = stores_[e.owner];
    for (auto it = pending.begin(); it != pending.end(); ++it)
      if (it->store == int64_t(e.aux)) {
        c = Change{Change::Erased, e.owner, uint32_t(it - pending.begin()), it->store, it->addr, it->size};
        pending.erase(it);
        return c;
      }
  } else if (e.thread < shm::kFlushActorBase && (e.flags & shm::kBuffered) && is_write_kind(e)) {
    stores_[e.thread].push_back(Store{k, e.addr, e.size});
    c.kind = Change::Pushed;
    c.thread = e.thread;
  }
  return c;
}

}  // namespace ctrl::dpor
