// Store buffers on real memory: what each thread sees, what a flush commits,
// and which buffers may flush, under TSO and PSO.
#include "StoreBuffers.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ctrl::agent {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Thread `t` stores v at p (as a store site does: record, then the native store).
template <class T>
void store(StoreBuffers& b, uint32_t t, T* p, T v, uint64_t step = 0) {
  ASSERT_TRUE(b.record(t, reinterpret_cast<uint64_t>(p), sizeof(T), step));
  *p = v;
}

uint64_t bit(uint32_t i) { return uint64_t(1) << i; }

TEST(StoreBuffers, TsoThreadSeesItsOwnStoresOthersTheCommittedOnes) {
  alignas(8) static uint64_t x = 0;
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::TSO);
  store<uint64_t>(b, 1, &x, 5);
  EXPECT_EQ(x, 5u);  // T1 runs: its own view
  b.switch_out(1);
  EXPECT_EQ(x, 0u);  // nobody else sees it yet
  EXPECT_EQ(b.nonempty_threads(), bit(1));
  EXPECT_EQ(b.flushable_actors(), bit(1));
  uint32_t owner = kNone;
  StoreBuffers::Entry e = b.flush(1, kNone, owner);
  EXPECT_EQ(owner, 1u);
  EXPECT_EQ(e.addr, reinterpret_cast<uint64_t>(&x));
  EXPECT_EQ(x, 5u);
  EXPECT_EQ(b.nonempty_threads(), 0u);
}

// A store site buffers a local; the function returns and a call pushes its
// return address over that slot (no store site): the thread must read its
// return address back after another thread ran or its old store flushed.
TEST(StoreBuffers, AnUnbufferedWriteOverBufferedBytesIsNeverUndone) {
  alignas(8) static uint64_t slot[2] = {};
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::TSO);
  store<uint64_t>(b, 1, &slot[0], 0x1000);
  store<uint64_t>(b, 1, &slot[1], 0x1001);
  slot[0] = 0x401234;  // the pushed return address
  b.switch_out(1);
  EXPECT_EQ(slot[0], 0x401234u) << "committed at once, as the thread's other plain stack writes";
  EXPECT_EQ(slot[1], 0u);
  b.switch_in(1);
  EXPECT_EQ(slot[0], 0x401234u);
  EXPECT_EQ(slot[1], 0x1001u);
  b.switch_out(1);
  uint32_t owner = kNone;
  b.flush(1, kNone, owner);  // the buffered 0x1000 reaches memory: it must not land over the address
  EXPECT_EQ(slot[0], 0x401234u);
  b.flush(1, kNone, owner);
  EXPECT_EQ(slot[1], 0x1001u);
  EXPECT_EQ(b.nonempty_threads(), 0u);
}

TEST(StoreBuffers, ALoadIsForwardedWholeOnlyFromTheNewestStoreThereCoveringIt) {
  alignas(8) static uint8_t m[16] = {};
  auto at = [](int i) { return reinterpret_cast<uint64_t>(&m[i]); };
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::TSO);
  ASSERT_TRUE(b.record(1, at(0), 8, 0));
  EXPECT_TRUE(b.forwards_whole(1, at(0), 8));
  EXPECT_TRUE(b.forwards_whole(1, at(2), 4));
  EXPECT_FALSE(b.forwards_whole(1, at(4), 8)) << "half of it is in memory";
  EXPECT_FALSE(b.forwards_whole(1, at(8), 4)) << "not buffered at all";
  EXPECT_FALSE(b.forwards_whole(2, at(0), 8)) << "another thread's buffer";
  ASSERT_TRUE(b.record(1, at(2), 1, 1));
  EXPECT_TRUE(b.forwards_whole(1, at(2), 1));
  EXPECT_FALSE(b.forwards_whole(1, at(0), 8)) << "the newest store there covers one byte";
  b.switch_out(1);
}

TEST(StoreBuffers, TsoFlushesInProgramOrderAndForwardsPartialOverlaps) {
  alignas(8) static uint8_t m[16] = {};
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::TSO);
  uint32_t four = 0x04030201;
  ASSERT_TRUE(b.record(2, reinterpret_cast<uint64_t>(m), 4, 0));
  std::memcpy(m, &four, 4);
  store<uint8_t>(b, 2, &m[1], 0xaa);
  EXPECT_TRUE(b.overlaps(2, reinterpret_cast<uint64_t>(&m[3]), 1));
  EXPECT_FALSE(b.overlaps(2, reinterpret_cast<uint64_t>(&m[4]), 4));
  b.switch_out(2);
  EXPECT_EQ(m[0], 0);
  EXPECT_EQ(m[1], 0);
  uint32_t owner = kNone;
  b.flush(2, kNone, owner);  // the 4-byte store first
  EXPECT_EQ(m[1], 0x02);
  EXPECT_EQ(m[3], 0x04);
  b.switch_in(2);  // T2 sees its newer byte on top of committed memory
  EXPECT_EQ(m[1], 0xaa);
  b.switch_out(2);
  EXPECT_EQ(m[1], 0x02);
  b.flush(2, kNone, owner);
  EXPECT_EQ(m[1], 0xaa);
}

TEST(StoreBuffers, PsoLocationsFlushInAnyOrder) {
  alignas(8) static uint64_t x = 0, y = 0;
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::PSO);
  store<uint64_t>(b, 0, &x, 1, 10);
  store<uint64_t>(b, 0, &y, 2, 11);
  // Two locations, two flush actors, both may flush first.
  EXPECT_EQ(b.flushable_actors(), bit(0) | bit(1));
  b.switch_out(0);
  uint32_t owner = kNone;
  StoreBuffers::Entry e = b.flush(1, kNone, owner);  // y before x
  EXPECT_EQ(e.step, 11u);
  EXPECT_EQ(owner, 0u);
  EXPECT_EQ(y, 2u);
  EXPECT_EQ(x, 0u);
  EXPECT_EQ(b.flushable_actors(), bit(0));
}

TEST(StoreBuffers, PsoSameWordKeepsOrderAndSfenceOrdersLocations) {
  alignas(8) static uint32_t w[2] = {};
  alignas(8) static uint64_t z = 0;
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::PSO);
  store<uint32_t>(b, 3, &w[0], 1);
  store<uint32_t>(b, 3, &w[1], 2);  // same 8-byte word: same buffer
  EXPECT_EQ(b.flushable_actors(), bit(0));
  b.fence(3);
  store<uint64_t>(b, 3, &z, 3);
  // z's store is behind the sfence: it waits for the word's two stores.
  EXPECT_EQ(b.flushable_actors(), bit(0));
  uint32_t owner = kNone;
  b.flush(0, 3, owner);  // flushed while T3 runs: memory keeps its view
  EXPECT_EQ(w[0], 1u);
  EXPECT_EQ(z, 3u);
  EXPECT_EQ(b.flushable_actors(), bit(0));
  b.flush(0, 3, owner);
  EXPECT_EQ(b.flushable_actors(), bit(1));
  b.switch_out(3);
  EXPECT_EQ(z, 0u);
  EXPECT_EQ(w[1], 2u);
}

TEST(StoreBuffers, PsoRefusesWordCrossingStoresAndRunsOutOfActorsClearly) {
  alignas(8) static uint64_t many[40] = {};
  StoreBuffers b;
  b.reset(StoreBuffers::Mode::PSO);
  EXPECT_FALSE(b.bufferable(reinterpret_cast<uint64_t>(&many[0]) + 4, 8));
  EXPECT_FALSE(b.bufferable(reinterpret_cast<uint64_t>(&many[0]), 16));
  EXPECT_TRUE(b.bufferable(reinterpret_cast<uint64_t>(&many[0]) + 4, 4));
  for (uint32_t i = 0; i < StoreBuffers::kMaxActors; ++i)
    ASSERT_TRUE(b.record(0, reinterpret_cast<uint64_t>(&many[i]), 8, i));
  EXPECT_FALSE(b.record(0, reinterpret_cast<uint64_t>(&many[StoreBuffers::kMaxActors]), 8, 99));
  b.reset(StoreBuffers::Mode::TSO);
  EXPECT_TRUE(b.bufferable(reinterpret_cast<uint64_t>(&many[0]) + 4, 16));
}

}  // namespace
}  // namespace ctrl::agent
