#include "StoreBuffers.h"

#include <cstring>

#include "RawCopy.h"

namespace ctrl::agent {

namespace {
void* at(uint64_t addr) { return reinterpret_cast<void*>(addr); }
uint64_t word_of(uint64_t addr) { return addr & ~uint64_t(7); }
}  // namespace

void StoreBuffers::reset(Mode mode) {
  mode_ = mode;
  for (auto& b : buffers_) b.clear();
  nonempty_ = 0;
  for (auto& e : epoch_) e = 0;
  actor_count_ = 0;
}

bool StoreBuffers::bufferable(uint64_t addr, uint32_t size) const {
  if (size == 0 || size > kMaxBytes) return false;
  return mode_ == Mode::TSO || word_of(addr) == word_of(addr + size - 1);
}

uint64_t StoreBuffers::flushable_actors() const {
  if (mode_ == Mode::TSO) return nonempty_threads();
  uint64_t m = 0;
  for (uint64_t threads = nonempty_; threads; threads &= threads - 1) {
    const auto& b = buffers_[__builtin_ctzll(threads)];
    // Entries of the oldest epoch, oldest first: the first of each actor
    // is that actor's oldest entry.
    for (const Entry& e : b) {
      if (e.epoch != b.front().epoch) break;
      m |= uint64_t(1) << e.actor;
    }
  }
  return m;
}

bool StoreBuffers::overlaps(uint32_t t, uint64_t addr, uint32_t size) const {
  for (const Entry& e : buffers_[t])
    if (addr < e.addr + e.size && e.addr < addr + size) return true;
  return false;
}

bool StoreBuffers::forwards_whole(uint32_t t, uint64_t addr, uint32_t size) const {
  for (auto it = buffers_[t].rbegin(); it != buffers_[t].rend(); ++it)
    if (addr < it->addr + it->size && it->addr < addr + size)
      return it->addr <= addr && addr + size <= it->addr + it->size;
  return false;
}

bool StoreBuffers::record(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) {
  capture(t);
  uint32_t actor = t;
  if (mode_ == Mode::PSO) {
    uint64_t word = word_of(addr);
    actor = 0;
    while (actor < actor_count_ && !(actors_[actor].thread == t && actors_[actor].word == word)) ++actor;
    if (actor == actor_count_) {
      if (actor_count_ == kMaxActors) return false;
      actors_[actor_count_++] = Actor{t, word};
    }
  }
  Entry& e = buffers_[t].emplace_back();
  nonempty_ |= uint64_t(1) << t;
  e.addr = addr;
  e.size = size;
  e.actor = actor;
  e.epoch = epoch_[t];
  e.step = step;
  copy_raw(e.replaced, at(addr), size);
  return true;
}

void StoreBuffers::stack_at(uint32_t t, uint64_t live) {
  if (live < kDeadStack) return;
  for (Entry& e : buffers_[t])
    if (!e.dead && e.addr < live && e.addr + e.size > live - kDeadStack) {
      e.dead = true;
      e.captured = true;
    }
}

void StoreBuffers::capture(uint32_t t) {
  if (buffers_[t].empty()) return;
  Entry& e = buffers_[t].back();
  if (e.captured) return;
  copy_raw(e.written, at(e.addr), e.size);
  e.captured = true;
}

void StoreBuffers::switch_out(uint32_t t) {
  capture(t);
  auto& b = buffers_[t];
  // Newest first: once the newer entries are undone, memory under an entry
  // holds what it wrote, unless a write that is no store site (a call's
  // return address, an rsp-relative spill, the kernel) went over its bytes
  // since. Such a write is not buffered: its bytes are committed as they
  // are, in this entry and the older ones under it, or undoing the entry
  // (or flushing it later) would bring back what the thread overwrote.
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    if (it->dead) continue;
    auto* mem = static_cast<uint8_t*>(at(it->addr));
    if (!equal_raw(mem, it->written, it->size))
      for (uint32_t i = 0; i < it->size; ++i)
        if (mem[i] != it->written[i]) it->written[i] = it->replaced[i] = mem[i];
    copy_raw(mem, it->replaced, it->size);
  }
}

void StoreBuffers::switch_in(uint32_t t) {
  for (Entry& e : buffers_[t]) {
    if (e.dead) continue;
    copy_raw(e.replaced, at(e.addr), e.size);
    copy_raw(at(e.addr), e.written, e.size);
  }
}

StoreBuffers::Entry StoreBuffers::flush(uint32_t actor, uint32_t running, uint32_t& owner) {
  uint32_t t = mode_ == Mode::TSO ? actor : actors_[actor].thread;
  owner = t;
  auto& b = buffers_[t];
  auto it = b.begin();
  while (it->actor != actor) ++it;
  if (t == running) {
    // Its bytes are already in memory: committing them is forgetting the
    // entry. Later entries over the same bytes (same location) replaced
    // them, so they now restore committed bytes; other locations' entries
    // do not overlap it.
    capture(t);
    Entry e = *it;
    b.erase(it);
    if (b.empty()) nonempty_ &= ~(uint64_t(1) << t);
    return e;
  }
  bool in_memory = running < shm::kFlushActorBase;
  if (in_memory) switch_out(running);
  Entry e = *it;
  b.erase(it);
  if (b.empty()) nonempty_ &= ~(uint64_t(1) << t);
  if (!e.dead) copy_raw(at(e.addr), e.written, e.size);
  if (in_memory) switch_in(running);
  return e;
}

}  // namespace ctrl::agent
