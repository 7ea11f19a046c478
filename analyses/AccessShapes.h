// Which bytes of an execution's memory accesses can be tracked as one
// location (SoberMonitor.h, HbRaces.h): locations are bytes, so accesses of
// different sizes share exactly those, but an access whose bytes no access
// of another address or size touches in the execution is one location:
// every one of its bytes would have the same history. Decided per aligned
// 8-byte word; an access across words is always split into bytes.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace ctrl {

class AccessShapes {
 public:
  void note(uint64_t addr, uint64_t size) {
    if (size == 0) size = 1;
    uint64_t first = addr >> 3, last = (addr + size - 1) >> 3;
    if (first != last) {
      for (uint64_t w = first; w <= last; ++w) words_[w] = kMixed;
      return;
    }
    auto [it, inserted] = words_.try_emplace(first, shape(addr, size));
    if (!inserted && it->second != shape(addr, size)) it->second = kMixed;
  }
  // Whether the access at addr of size bytes is one location.
  bool whole(uint64_t addr, uint64_t size) const {
    if (size == 0) size = 1;
    if (addr >> 3 != (addr + size - 1) >> 3) return false;
    auto it = words_.find(addr >> 3);
    return it != words_.end() && it->second == shape(addr, size);
  }

 private:
  static constexpr uint64_t kMixed = ~uint64_t(0);
  static uint64_t shape(uint64_t addr, uint64_t size) { return addr << 8 | size; }
  std::unordered_map<uint64_t, uint64_t> words_;
};

}  // namespace ctrl
