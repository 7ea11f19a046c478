// Strategy::plan_at, what partitioned exploration (PartitionedSampling.h)
// runs on several sessions at once: a seeded strategy's n-th plan, known
// before the plans ahead of it ran, equal to what next() gives in its turn
// while no execution teaches the strategy anything new; nothing for the
// systematic strategies, whose plans depend on the executions before.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "DporStrategy.h"
#include "PctStrategy.h"
#include "RandomStrategy.h"

using namespace ctrl;

namespace {

void show(Strategy& s, uint64_t steps) {
  std::vector<shm::Event> events(steps);
  ExecutionSummary sum;
  sum.events = events.data();
  sum.steps = steps;
  sum.complete = true;
  s.completed(sum);
}

}  // namespace

TEST(PlanAt, RandomAndPosPlansAreKnownAhead) {
  for (auto policy : {shm::TailPolicy::Random, shm::TailPolicy::Pos}) {
    RandomStrategy s(7, policy);
    std::vector<ExecutionPlan> ahead;
    for (uint64_t n = 0; n < 20; ++n) ahead.push_back(*s.plan_at(n));
    for (uint64_t n = 0; n < 20; ++n) {
      auto plan = s.next();
      ASSERT_TRUE(plan);
      EXPECT_TRUE(same_plan(*plan, ahead[n])) << n;
      EXPECT_TRUE(same_plan(*plan, *s.plan_at(n))) << n;  // asked again after its turn
      show(s, 10 + n);
    }
    // Distinct seeds: a range of plan numbers is a range of seeds.
    EXPECT_NE(ahead[3].seed, ahead[4].seed);
  }
}

TEST(PlanAt, PctPlansFollowTheLearntLength) {
  PctStrategy s(3, 3, PctStrategy::Points::Steps);
  auto first = *s.plan_at(5);
  auto plan = s.next();
  ASSERT_TRUE(plan);
  EXPECT_TRUE(same_plan(*plan, *s.plan_at(0)));
  show(s, 40);  // the first execution replaces the default length
  auto after = *s.plan_at(5);
  EXPECT_FALSE(same_plan(first, after));
  for (uint64_t point : after.pct_change) EXPECT_LT(point, 40u);
  for (uint64_t n = 1; n < 5; ++n) {
    ASSERT_TRUE(s.next());
    show(s, 30);  // shorter: teaches nothing
  }
  auto fifth = s.next();
  ASSERT_TRUE(fifth);
  EXPECT_TRUE(same_plan(*fifth, after));
}

TEST(PlanAt, SystematicStrategiesHaveNone) {
  DporStrategy dpor;
  EXPECT_FALSE(dpor.plan_at(0));
  EXPECT_FALSE(dpor.plan_at(3));
}
