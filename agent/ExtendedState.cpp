#include "ExtendedState.h"

#include <cpuid.h>

#include <algorithm>

namespace ctrl::agent {

namespace {

// XCR0 bits 17 and 18: AMX's TILECFG and TILEDATA.
constexpr uint64_t kAmxComponents = (uint64_t(1) << 17) | (uint64_t(1) << 18);
// The legacy region and the header.
constexpr uint32_t kLegacyAndHeader = 576;

}  // namespace

ExtendedState ExtendedState::of_this_cpu() {
  unsigned eax, ebx, ecx, edx;
  __cpuid_count(0xd, 0, eax, ebx, ecx, edx);
  ExtendedState xs;
  // The components the OS enabled (CPUID reports XCR0's value here).
  xs.mask = ((uint64_t(edx) << 32) | eax) & ~kAmxComponents;
  __cpuid_count(0xd, 1, eax, ebx, ecx, edx);
  xs.compacted = (eax >> 1) & 1;
  // The standard format's extent of the saved components, or the compacted
  // one's (the same components packed in order, some aligned to 64 bytes:
  // CPUID.(0xd, i):ECX bit 1), whichever is larger.
  uint32_t standard = kLegacyAndHeader, compact = kLegacyAndHeader;
  for (unsigned i = 2; i < 63; ++i) {
    if (!((xs.mask >> i) & 1)) continue;
    __cpuid_count(0xd, i, eax, ebx, ecx, edx);
    standard = std::max(standard, ebx + eax);
    if ((ecx >> 1) & 1) compact = (compact + 63) & ~63u;
    compact += eax;
  }
  xs.size = (std::max(standard, compact) + 63) & ~63u;
  return xs;
}

}  // namespace ctrl::agent
