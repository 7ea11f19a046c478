#include "OwnMemory.h"

#include <algorithm>

namespace ctrl::agent::own_memory {

namespace {

// Every region registered in this execution (program-side state: a rollback
// takes it back to the checkpoint's, where only the main thread's and the
// pool's are).
constexpr uint32_t kMaxRegions = shm::kMaxThreads + 8;
Span regions[kMaxRegions];
uint32_t nregions = 0;
uint64_t lowest = UINT64_MAX, highest = 0;  // their bounding box

// The calling thread's own memory (the main thread has two spans).
thread_local Span t_own[2] __attribute__((tls_model("initial-exec")));

bool inside(const Span& s, uint64_t a, uint64_t e) { return s.lo <= a && e <= s.hi; }

void add_region(Span s) {
  if (s.lo >= s.hi) return;
  for (uint32_t k = 0; k < nregions; ++k)
    if (regions[k].lo == s.lo && regions[k].hi == s.hi) return;
  // Past the table a region is nobody's concern: its thread gets no own
  // memory (set_thread checks), so every access to it stays a step.
  if (nregions == kMaxRegions) return;
  regions[nregions++] = s;
  lowest = std::min(lowest, s.lo);
  highest = std::max(highest, s.hi);
}

bool registered(const Span& s) {
  for (uint32_t k = 0; k < nregions; ++k)
    if (regions[k].lo == s.lo && regions[k].hi == s.hi) return true;
  return false;
}

// The first shared range that ends after `a`.
uint32_t first_after(const shm::Header& h, uint64_t a) {
  uint32_t lo = 0, hi = std::min(h.nshared, shm::kMaxShared);
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (h.shared[mid].addr + h.shared[mid].size <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool shared_overlaps(const shm::Header& h, uint64_t a, uint64_t e) {
  uint32_t k = first_after(h, a);
  return k < std::min(h.nshared, shm::kMaxShared) && h.shared[k].addr < e;
}

bool shared_covers(const shm::Header& h, uint64_t a, uint64_t e) {
  uint32_t k = first_after(h, a);
  return k < std::min(h.nshared, shm::kMaxShared) && h.shared[k].addr <= a && e <= h.shared[k].addr + h.shared[k].size;
}

void record(shm::Header& h, uint64_t a, uint64_t e) {
  for (uint32_t k = 0; k < h.ndiscovered; ++k) {
    const auto& d = h.discovered[k];
    if (d.addr <= a && e <= d.addr + d.size) return;
  }
  if (h.ndiscovered == shm::kMaxDiscovered) {
    h.discovered_overflow = 1;
    return;
  }
  h.discovered[h.ndiscovered++] = {a, e - a};
}

}  // namespace

void set_main(Span stack, Span tls) {
  t_own[0] = stack;
  t_own[1] = tls;
  add_region(stack);
  add_region(tls);
}

void add_unowned(Span s) { add_region(s); }

void set_thread(Span block) {
  add_region(block);
  t_own[0] = registered(block) ? block : Span{};
  t_own[1] = Span{};
}

bool hidden(const shm::Header& h, uint64_t addr, uint64_t size) {
  uint64_t e = addr + (size ? size : 1);
  if (!inside(t_own[0], addr, e) && !inside(t_own[1], addr, e)) return false;
  return h.nshared == 0 || !shared_overlaps(h, addr, e);
}

bool stays_hidden(ThreadModel& th, bool load) {
  if (th.own_quiet < kQuietAccesses) {
    ++th.own_quiet;
    return true;
  }
  if (!load) return true;
  if (++th.own_burst >= kBurstLoads) th.own_quiet = th.own_burst = 0;
  return false;
}

void note(shm::Header& h, uint64_t addr, uint64_t size, bool even_own) {
  uint64_t e = addr + (size ? size : 1);
  if (e <= lowest || addr >= highest || e < addr) return;
  for (uint32_t k = 0; k < nregions; ++k) {
    const Span& r = regions[k];
    uint64_t lo = std::max(addr, r.lo), hi = std::min(e, r.hi);
    if (lo >= hi) continue;
    if (!even_own && (inside(t_own[0], lo, hi) || inside(t_own[1], lo, hi))) continue;
    lo &= ~(shm::kOwnGranule - 1);
    hi = (hi + shm::kOwnGranule - 1) & ~(shm::kOwnGranule - 1);
    if (!shared_covers(h, lo, hi)) record(h, lo, hi);
  }
}

void note_op(shm::Header& h, const PendingOp& op) {
  if (op_reads_memory(op.kind) || op_writes_memory(op.kind)) {
    // A libatomic call's location is shared even in its own thread's
    // memory: it is one event while the plain accesses around it would not
    // be, and under c11/rc11 a load whose initialising store is no event
    // would read "uninitialised" memory.
    note(h, op.addr, op.size, op_props::of(op.kind) & op_props::Atomic);
    // A string move's source.
    if (op.addr2 && (op_props::of(op.kind) & op_props::Instr)) note(h, op.addr2, op.size);
    return;
  }
  switch (op.kind) {
    case OpKind::FutexWait:
    case OpKind::FutexWake:
      note(h, op.addr, 4);
      break;
    case OpKind::FutexRequeue:
      note(h, op.addr, 4);
      if (op.addr2) note(h, op.addr2, 4);
      break;
    default:
      break;
  }
}

}  // namespace ctrl::agent::own_memory
