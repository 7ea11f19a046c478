// same_plan (Strategy.h), by which partitioned exploration takes a result
// run by another session for the plan in its turn: every field the agent is
// given counts, the sleepers' accesses and the seed included.
#include <gtest/gtest.h>

#include "Strategy.h"

using namespace ctrl;

TEST(SamePlan, ComparesWhatTheAgentSees) {
  constexpr uint64_t X = 0x1000;
  ExecutionPlan a, b;
  a.prefix = b.prefix = {0, 1};
  EXPECT_TRUE(same_plan(a, b));
  b.sleepers.emplace_back(1, shm::SleeperAccess{});
  b.sleep_mask = 2;
  EXPECT_FALSE(same_plan(a, b));
  a.sleepers = b.sleepers;
  a.sleep_mask = 2;
  EXPECT_TRUE(same_plan(a, b));
  a.sleepers[0].second.read_addr = X;
  EXPECT_FALSE(same_plan(a, b));
  b = a;
  b.seed = 1;
  EXPECT_FALSE(same_plan(a, b));
}
