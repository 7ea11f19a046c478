// The in-agent half of a strategy: which enabled thread runs next once the
// controller's prefix of decisions is used up. Runs on the target's hot path,
// so it is header-only, allocation-free and takes a bit set.
#pragma once

#include <cstdint>

#include "SharedRegion.h"

namespace ctrl {

// splitmix64: a full-period generator with good mixing from any seed.
inline uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Seed of execution `index` of a random exploration started from `seed`.
inline uint64_t execution_seed(uint64_t seed, uint64_t index) {
  uint64_t s = seed ^ (index * 0xd1b54a32d192ed03ULL);
  return next_random(s);
}

// `enabled` must not be empty. `current` is the thread that reached the
// scheduling point; `last` the thread chosen at the previous step.
inline uint32_t choose_tail(shm::TailPolicy policy, uint64_t enabled, uint32_t current, uint32_t last,
                            uint64_t& rng) {
  switch (policy) {
    case shm::TailPolicy::Random: {
      uint32_t n = uint32_t(__builtin_popcountll(enabled));
      uint32_t k = uint32_t(next_random(rng) % n);
      uint64_t m = enabled;
      while (k--) m &= m - 1;
      return uint32_t(__builtin_ctzll(m));
    }
    case shm::TailPolicy::RoundRobin: {
      uint32_t from = (last + 1) % shm::kMaxThreads;
      uint64_t rotated = from == 0 ? enabled : (enabled >> from) | (enabled << (64 - from));
      return (uint32_t(__builtin_ctzll(rotated)) + from) % shm::kMaxThreads;
    }
    case shm::TailPolicy::Sticky:
    case shm::TailPolicy::Ask:  // past the controller's decisions: sticky
      if (enabled & (uint64_t(1) << current)) return current;
      return uint32_t(__builtin_ctzll(enabled));
  }
  return uint32_t(__builtin_ctzll(enabled));
}

}  // namespace ctrl
