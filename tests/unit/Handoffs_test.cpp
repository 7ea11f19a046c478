// count_handoffs: the times the thread running the next step changes in an
// execution, what issue 12 compares context switches per execution with.
#include <gtest/gtest.h>

#include <vector>

#include "exploration/Explorer.h"

using namespace ctrl;

namespace {

std::vector<shm::Event> events_of(const std::vector<uint16_t>& threads) {
  std::vector<shm::Event> events;
  for (uint16_t t : threads) {
    shm::Event e{};
    e.step = uint32_t(events.size());
    e.thread = t;
    e.kind = uint16_t(t >= shm::kFlushActorBase ? OpKind::Flush : OpKind::AtomicLoad);
    events.push_back(e);
  }
  return events;
}

}  // namespace

TEST(Handoffs, NoneInOneThreadsRun) {
  EXPECT_EQ(count_handoffs({}), 0u);
  EXPECT_EQ(count_handoffs(events_of({0})), 0u);
  EXPECT_EQ(count_handoffs(events_of({0, 0, 0})), 0u);
}

TEST(Handoffs, EachChangeOfThreadIsOne) {
  EXPECT_EQ(count_handoffs(events_of({0, 1})), 1u);
  EXPECT_EQ(count_handoffs(events_of({0, 0, 1, 1, 0, 2, 2, 1})), 4u);
}

TEST(Handoffs, AFlushRunsInTheThreadThatChoseIt) {
  uint16_t flush = uint16_t(shm::kFlushActorBase);
  // T0 flushes T1's buffer and goes on: no hand-off.
  EXPECT_EQ(count_handoffs(events_of({0, uint16_t(flush + 1), 0})), 0u);
  // T0 flushes, then T1 runs: one.
  EXPECT_EQ(count_handoffs(events_of({0, flush, 1})), 1u);
}

TEST(Handoffs, StepsBeforeFromDidNotRun) {
  auto e = events_of({0, 1, 0, 1, 1});
  EXPECT_EQ(count_handoffs(e, 0), 3u);
  EXPECT_EQ(count_handoffs(e, 2), 1u);  // 0 1 1
  EXPECT_EQ(count_handoffs(e, 5), 0u);
}
