// The shared set of own memory (controller/SharedSet.h): sorted, disjoint,
// merged, and as the region and traces carry it.
#include "exploration/SharedSet.h"

#include <gtest/gtest.h>

#include <memory>

namespace ctrl {
namespace {

TEST(SharedSet, MergesOverlappingAndAdjacentRunsInOrder) {
  std::vector<SharedRange> set;
  EXPECT_EQ(add_shared(set, {{0x2000, 64}, {0x1000, 64}}), 128u);
  EXPECT_EQ(add_shared(set, {{0x1040, 64}, {0x1000, 64}}), 64u);  // adjacent, and one already there
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set[0].addr, 0x1000u);
  EXPECT_EQ(set[0].size, 128u);
  EXPECT_EQ(set[1].addr, 0x2000u);
  EXPECT_EQ(add_shared(set, {{0x1000, 0x1040}}), 0x1040u - 192u);  // covers both and more
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(shared_bytes(set), 0x1040u);
}

TEST(SharedSet, OwnMemoryOffWhenTheSetDoesNotFit) {
  auto h = std::make_unique<shm::Header>();
  std::vector<SharedRange> set;
  for (uint64_t k = 0; k <= shm::kMaxShared; ++k) set.push_back({k * 128, 64});
  write_shared(*h, true, set);
  EXPECT_EQ(h->own_memory, 0u);
  EXPECT_EQ(h->nshared, 0u);
  set.pop_back();
  write_shared(*h, true, set);
  EXPECT_EQ(h->own_memory, 1u);
  EXPECT_EQ(h->nshared, shm::kMaxShared);
  EXPECT_EQ(h->shared[3].addr, 3u * 128);
}

TEST(SharedSet, RoundTripsThroughTraceOptions) {
  std::vector<SharedRange> set{{0x7fff0000, 64}, {0x7fff1000, 192}};
  proto::Options o;
  set_trace_shared(o, set);
  auto back = trace_shared(o);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].addr, 0x7fff1000u);
  EXPECT_EQ(back[1].size, 192u);
}

}  // namespace
}  // namespace ctrl
