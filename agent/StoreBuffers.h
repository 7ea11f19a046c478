// x86-TSO store buffers, without emulating instructions ("execute and
// revert"): a plain store runs natively and its thread's buffer records the
// bytes it replaced; the bytes it wrote are read back at the thread's next
// visible operation (every store site is one). While a thread runs, memory
// shows its own view (committed memory plus its buffer): its loads see its
// newest buffered bytes, as forwarding does. When it is switched out its
// buffered bytes are put back to the committed ones; when it resumes they
// are applied again (the committed bytes underneath read anew). A flush
// commits the oldest entry of one thread.
//
// Invariants: between visible operations memory = committed + the running
// thread's buffer; a thread that is not running has nothing of its buffer in
// memory. Entries hold at most kMaxBytes; bigger stores are not buffered
// (the caller drains first and runs them directly).
#pragma once

#include <cstdint>
#include <deque>

#include "SharedRegion.h"

namespace ctrl::agent {

class StoreBuffers {
 public:
  static constexpr uint32_t kMaxBytes = 64;
  static constexpr uint32_t kMaxEntries = 256;

  struct Entry {
    uint64_t addr = 0;
    uint32_t size = 0;
    bool captured = false;  // `written` holds the store's bytes
    uint64_t step = 0;      // the store's event
    uint8_t replaced[kMaxBytes];
    uint8_t written[kMaxBytes];
  };

  bool empty(uint32_t t) const { return buffers_[t].empty(); }
  size_t size(uint32_t t) const { return buffers_[t].size(); }
  bool full(uint32_t t) const { return buffers_[t].size() >= kMaxEntries; }
  uint64_t nonempty_mask() const;
  // Whether [addr, addr+size) touches bytes of t's buffer.
  bool overlaps(uint32_t t, uint64_t addr, uint32_t size) const;

  // The running thread `t` is about to store: remember what the store replaces.
  void record(uint32_t t, uint64_t addr, uint32_t size, uint64_t step);
  // Reads back what t's latest store wrote (before anything else runs).
  void capture(uint32_t t);
  void switch_out(uint32_t t);
  void switch_in(uint32_t t);
  // Commits t's oldest entry while `running` is the thread in memory (or
  // UINT32_MAX). Returns the entry committed.
  Entry flush(uint32_t t, uint32_t running);
  void clear();

 private:
  std::deque<Entry> buffers_[shm::kFlushActorBase];
};

}  // namespace ctrl::agent
