#include "StoreBuffers.h"

#include <cstring>

namespace ctrl::agent {

namespace {
void* at(uint64_t addr) { return reinterpret_cast<void*>(addr); }
}  // namespace

uint64_t StoreBuffers::nonempty_mask() const {
  uint64_t m = 0;
  for (uint32_t t = 0; t < shm::kFlushActorBase; ++t)
    if (!buffers_[t].empty()) m |= uint64_t(1) << t;
  return m;
}

bool StoreBuffers::overlaps(uint32_t t, uint64_t addr, uint32_t size) const {
  for (const Entry& e : buffers_[t])
    if (addr < e.addr + e.size && e.addr < addr + size) return true;
  return false;
}

void StoreBuffers::record(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) {
  capture(t);
  Entry& e = buffers_[t].emplace_back();
  e.addr = addr;
  e.size = size;
  e.step = step;
  std::memcpy(e.replaced, at(addr), size);
}

void StoreBuffers::capture(uint32_t t) {
  if (buffers_[t].empty()) return;
  Entry& e = buffers_[t].back();
  if (e.captured) return;
  std::memcpy(e.written, at(e.addr), e.size);
  e.captured = true;
}

void StoreBuffers::switch_out(uint32_t t) {
  capture(t);
  auto& b = buffers_[t];
  for (auto it = b.rbegin(); it != b.rend(); ++it) std::memcpy(at(it->addr), it->replaced, it->size);
}

void StoreBuffers::switch_in(uint32_t t) {
  for (Entry& e : buffers_[t]) {
    std::memcpy(e.replaced, at(e.addr), e.size);
    std::memcpy(at(e.addr), e.written, e.size);
  }
}

StoreBuffers::Entry StoreBuffers::flush(uint32_t t, uint32_t running) {
  if (t == running) {
    // Its bytes are already in memory: committing them is forgetting the
    // entry (the next entries replaced bytes on top of it).
    capture(t);
    Entry e = buffers_[t].front();
    buffers_[t].pop_front();
    return e;
  }
  bool in_memory = running < shm::kFlushActorBase;
  if (in_memory) switch_out(running);
  Entry e = buffers_[t].front();
  buffers_[t].pop_front();
  std::memcpy(at(e.addr), e.written, e.size);
  if (in_memory) switch_in(running);
  return e;
}

void StoreBuffers::clear() {
  for (auto& b : buffers_) b.clear();
}

}  // namespace ctrl::agent
