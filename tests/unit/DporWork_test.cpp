// Partitioned DPOR's messages (protocol/dpor_work.proto): a work item and a
// request stolen from a real exploration come back equal through the wire
// format, and a strategy started from the decoded item plans what one
// started from the original does.
#include "exploration/DporWork.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "SimulatedProgram.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

constexpr uint64_t X = 0x1000, M = 0x3000;

TEST(DporWork, StolenItemSurvivesTheWire) {
  Program p;
  for (int t = 0; t < 3; ++t)
    p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  DporStrategy dpor;
  std::optional<DporStrategy::WorkItem> item;
  for (int i = 0; i < 3 && !item; ++i) {
    auto plan = dpor.next();
    ASSERT_TRUE(plan);
    Outcome o = simulate(p, *plan);
    dpor.completed(summary_of(o, uint64_t(i)));
    if (i >= 1) item = dpor.steal();
  }
  ASSERT_TRUE(item);
  std::string wire;
  ASSERT_TRUE(encode_work_item(*item, 7, 3).SerializeToString(&wire));
  proto::DporWorkItem back;
  ASSERT_TRUE(back.ParseFromString(wire));
  EXPECT_EQ(back.id(), 7u);
  EXPECT_EQ(back.parent_id(), 3u);
  DporStrategy::WorkItem got = decode_work_item(back);
  EXPECT_EQ(got.prefix, item->prefix);
  EXPECT_EQ(got.thread, item->thread);
  EXPECT_EQ(got.sleep_mask, item->sleep_mask);
  ASSERT_EQ(got.sleepers.size(), item->sleepers.size());
  for (size_t k = 0; k < got.sleepers.size(); ++k) {
    EXPECT_EQ(got.sleepers[k].first, item->sleepers[k].first);
    EXPECT_EQ(std::memcmp(&got.sleepers[k].second, &item->sleepers[k].second, sizeof(shm::SleeperAccess)), 0);
  }
  DporStrategy a, b;
  a.start_item(*item);
  b.start_item(got);
  EXPECT_TRUE(same_plan(*a.next(), *b.next()));

  DporStrategy::Request r{5, 0b1010, 3};
  ASSERT_TRUE(encode_request(r, 9).SerializeToString(&wire));
  proto::DporRequest rm;
  ASSERT_TRUE(rm.ParseFromString(wire));
  EXPECT_EQ(rm.owner_id(), 9u);
  DporStrategy::Request rb = decode_request(rm);
  EXPECT_EQ(rb.state, 5u);
  EXPECT_EQ(rb.initials, 0b1010u);
  EXPECT_EQ(rb.thread, 3u);
}

}  // namespace
