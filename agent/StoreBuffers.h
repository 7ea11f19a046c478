// Store buffers (x86-TSO and PSO), without emulating instructions ("execute
// and revert"): a plain store runs natively and its thread's buffer records
// the bytes it replaced; the bytes it wrote are read back at the thread's
// next visible operation (every store site is one). While a thread runs,
// memory shows its own view (committed memory plus its buffer): its loads
// see its newest buffered bytes, as forwarding does. When it is switched out
// its buffered bytes are put back to the committed ones; when it resumes they
// are applied again (the committed bytes underneath read anew).
//
// TSO: one FIFO per thread; a flush commits its oldest entry. PSO: one FIFO
// per thread and location, the location being the aligned 8-byte word (so
// stores to different bytes of one word keep their order: PSO behaviours
// that reorder them are not explored); a flush commits the oldest entry of
// one location. An sfence orders the thread's stores before it ahead of those
// after it: an entry may flush only when no entry of an earlier sfence epoch
// remains. Each buffer that can flush is a flush actor, numbered from 0:
// under TSO the thread's index, under PSO in order of first use in the
// execution (so the same along a replayed prefix), never reused.
//
// Invariants: between visible operations memory = committed + the running
// thread's buffer; a thread that is not running has nothing of its buffer in
// memory. A thread's entries are kept in program order, never overlap a word
// boundary under PSO, and hold at most kMaxBytes; other stores are not
// buffered (the caller drains first and runs them directly). A write of
// the running thread that is no store site (a call pushing its return
// address where a buffered store's local was, an rsp-relative spill, the
// kernel filling a buffer) is committed at once: at the next switch-out
// the entries under its bytes take them as both their old and new value,
// so neither undoing nor flushing an entry ever brings back bytes its own
// thread overwrote since.
#pragma once

#include <cstdint>

#include "EntryRing.h"
#include "SharedRegion.h"

namespace ctrl::agent {

class StoreBuffers {
 public:
  enum class Mode { TSO, PSO };
  static constexpr uint32_t kMaxBytes = 64;
  static constexpr uint32_t kMaxEntries = 256;
  static constexpr uint32_t kMaxActors = shm::kMaxThreads - shm::kFlushActorBase;
  static constexpr const char* kTooManyLocations =
      "under --model pso ctrl keeps at most 32 store buffers (thread, 8-byte location) per execution; this "
      "execution stores to more";

  struct Entry {
    uint64_t addr = 0;
    uint32_t size = 0;
    bool captured = false;  // `written` holds the store's bytes
    // Below its thread's stack pointer (stack_at): the thread no longer
    // reads these bytes, and the agent and the kernel use them (frames,
    // signal frames) while the thread waits. What memory holds there stays:
    // neither a switch nor its flush writes them again.
    bool dead = false;
    uint32_t actor = 0;  // the buffer (flush actor) it is in
    uint32_t epoch = 0;  // its thread's sfence count when it was stored
    uint64_t step = 0;   // the store's event
    uint8_t replaced[kMaxBytes];
    uint8_t written[kMaxBytes];
  };

  // Empties every buffer for a new execution under `mode`.
  void reset(Mode mode);
  Mode mode() const { return mode_; }
  bool full(uint32_t t) const { return buffers_[t].size() >= kMaxEntries; }
  // Whether a plain store of `size` bytes at `addr` can be buffered.
  bool bufferable(uint64_t addr, uint32_t size) const;
  // Threads with buffered stores (they wait before anything that drains).
  uint64_t nonempty_threads() const { return nonempty_; }
  // Flush actors that may flush now (bit i: actor i).
  uint64_t flushable_actors() const;
  // Whether [addr, addr+size) touches bytes of t's buffer.
  bool overlaps(uint32_t t, uint64_t addr, uint32_t size) const;
  // Whether t's newest buffered store touching [addr, addr+size) covers it
  // whole: a load there reads that store alone, whatever memory holds.
  bool forwards_whole(uint32_t t, uint64_t addr, uint32_t size) const;

  // The running thread `t` is about to store: remember what the store
  // replaces. False when PSO has no flush actor left for a new location.
  bool record(uint32_t t, uint64_t addr, uint32_t size, uint64_t step);
  // An sfence by t.
  void fence(uint32_t t) { ++epoch_[t]; }
  // The running thread `t` is at a visible operation with its program's
  // stack pointer at `live` (the lowest byte it may still read; 0: not
  // known): its entries in the kDeadStack bytes below are dead.
  void stack_at(uint32_t t, uint64_t live);
  static constexpr uint64_t kDeadStack = 64 * 1024;
  // Reads back what t's latest store wrote (before anything else runs).
  void capture(uint32_t t);
  void switch_out(uint32_t t);
  void switch_in(uint32_t t);
  // Commits the oldest entry of flush actor `actor` while `running` is the
  // thread in memory (or UINT32_MAX); `owner` receives the storing thread.
  Entry flush(uint32_t actor, uint32_t running, uint32_t& owner);
  // Copies every buffered store, oldest first per thread, for a paused
  // execution's controller (at most `max`); returns how many.
  uint32_t snapshot(shm::BufferedStore* out, uint32_t max) const {
    uint32_t n = 0;
    for (uint32_t t = 0; t < shm::kFlushActorBase; ++t)
      for (const Entry& e : buffers_[t]) {
        if (n == max) return n;
        shm::BufferedStore& b = out[n++];
        b.thread = t;
        b.actor = e.actor;
        b.addr = e.addr;
        b.size = e.size;
        b.step = e.step;
        b.value = 0;
        // Not captured yet: the running thread's latest store, whose bytes
        // are in memory (its own view) until its next visible operation.
        const uint8_t* bytes = e.captured ? e.written : reinterpret_cast<const uint8_t*>(e.addr);
        for (uint32_t i = 0; i < e.size && i < 8; ++i) b.value |= uint64_t(bytes[i]) << (8 * i);
      }
    return n;
  }

 private:
  Mode mode_ = Mode::TSO;
  EntryRing<Entry, kMaxEntries> buffers_[shm::kFlushActorBase];
  // Bit t: buffers_[t] is not empty (asked at every step: a scan of the
  // buffers was 4% of a queue2 TSO run's samples).
  uint64_t nonempty_ = 0;
  uint32_t epoch_[shm::kFlushActorBase] = {};
  struct Actor {
    uint32_t thread;
    uint64_t word;
  };
  Actor actors_[kMaxActors] = {};
  uint32_t actor_count_ = 0;
};

}  // namespace ctrl::agent
