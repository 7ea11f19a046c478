// What a jump site's trampoline saves around the hook (agent/ExtendedState.h):
// every component the OS enables but AMX's, in an image no larger than the
// size it reserves, whose legacy region holds the xmm registers where the
// site's readers look for them.
#include "ExtendedState.h"

#include <cpuid.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace ctrl::agent {
namespace {

constexpr uint64_t kAmx = (uint64_t(1) << 17) | (uint64_t(1) << 18);

uint64_t xcr0() {
  unsigned eax, ebx, ecx, edx;
  __cpuid_count(0xd, 0, eax, ebx, ecx, edx);
  return (uint64_t(edx) << 32) | eax;
}

TEST(ExtendedState, EveryEnabledComponentButAmx) {
  ExtendedState xs = ExtendedState::of_this_cpu();
  EXPECT_EQ(xs.mask, xcr0() & ~kAmx);
  EXPECT_EQ(xs.size % 64, 0u);
  EXPECT_GE(xs.size, 576u);
}

// Saves with the trampoline's instruction and mask, clobbers ymm15, restores
// it, on a buffer whose bytes past `size` must stay untouched.
TEST(ExtendedState, SavesAndRestoresWithinItsSize) {
  ExtendedState xs = ExtendedState::of_this_cpu();
  if (!(xs.mask & 4)) GTEST_SKIP() << "no AVX state enabled";
  constexpr size_t kSlack = 16384;
  auto* buf = static_cast<uint8_t*>(std::aligned_alloc(64, xs.size + kSlack));
  ASSERT_NE(buf, nullptr);
  memset(buf, 0xa5, xs.size + kSlack);
  memset(buf + 512, 0, 64);  // the header starts zeroed, as the trampoline leaves it
  alignas(32) uint8_t in[32], out[32] = {};
  for (int i = 0; i < 32; ++i) in[i] = uint8_t(i * 7 + 1);
  uint32_t lo = uint32_t(xs.mask), hi = uint32_t(xs.mask >> 32);
  if (xs.compacted)
    asm volatile(
        "vmovdqu (%[in]), %%ymm15\n\t"
        "xsavec64 (%[buf])\n\t"
        "vpxor %%ymm15, %%ymm15, %%ymm15\n\t"
        "xrstor64 (%[buf])\n\t"
        "vmovdqu %%ymm15, (%[out])\n\t"
        :
        : [in] "r"(in), [buf] "r"(buf), [out] "r"(out), "a"(lo), "d"(hi)
        : "xmm15", "memory");
  else
    asm volatile(
        "vmovdqu (%[in]), %%ymm15\n\t"
        "xsave64 (%[buf])\n\t"
        "vpxor %%ymm15, %%ymm15, %%ymm15\n\t"
        "xrstor64 (%[buf])\n\t"
        "vmovdqu %%ymm15, (%[out])\n\t"
        :
        : [in] "r"(in), [buf] "r"(buf), [out] "r"(out), "a"(lo), "d"(hi)
        : "xmm15", "memory");
  EXPECT_EQ(memcmp(in, out, 32), 0);
  // xmm15 in the legacy region (fxsave layout: xmm0 at 160), SSE in use.
  uint64_t xstate_bv;
  memcpy(&xstate_bv, buf + 512, 8);
  EXPECT_TRUE(xstate_bv & 2);
  EXPECT_EQ(memcmp(buf + 160 + 15 * 16, in, 16), 0);
  size_t touched = 0;
  for (size_t i = xs.size; i < xs.size + kSlack; ++i) touched += buf[i] != 0xa5;
  EXPECT_EQ(touched, 0u);
  std::free(buf);
}

}  // namespace
}  // namespace ctrl::agent
