// AT_RANDOM from the trace (StartupRandom.h).
#include "StartupRandom.h"

#include <sys/auxv.h>

#include <cstdint>

#include "VirtualClock.h"

namespace {

// SplitMix64: well spread bytes from a counter and a seed.
uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

namespace ctrl::agent::startup_random {

void make_replayable() {
  int64_t realtime = 0, monotonic = 0;
  if (!virtual_clock::origin(&realtime, &monotonic)) return;
  // The kernel's bytes sit on the initial stack, writable.
  auto* bytes = reinterpret_cast<volatile uint8_t*>(getauxval(AT_RANDOM));
  if (!bytes) return;
  uint64_t words[2] = {mix(uint64_t(realtime)), mix(uint64_t(monotonic) ^ mix(uint64_t(realtime)))};
  for (int i = 0; i < 16; ++i) bytes[i] = uint8_t(words[i / 8] >> (8 * (i % 8)));
}

}  // namespace ctrl::agent::startup_random
