// The strategies and the in-agent tail chooser.
#include <gtest/gtest.h>

#include <map>

#include "Strategy.h"
#include "TailChooser.h"

using namespace ctrl;

namespace {

TEST(TailChooser, RandomIsUniformOverEnabledThreadsOnly) {
  uint64_t rng = 42;
  std::map<uint32_t, int> seen;
  const uint64_t enabled = 0b101100;  // threads 2, 3, 5
  for (int i = 0; i < 30000; ++i) ++seen[choose_tail(shm::TailPolicy::Random, enabled, 2, 2, rng)];
  ASSERT_EQ(seen.size(), 3u);
  for (auto [t, n] : seen) {
    EXPECT_TRUE(enabled & (uint64_t(1) << t));
    EXPECT_NEAR(n, 10000, 600) << "thread " << t;
  }
}

TEST(TailChooser, RandomIsReproducibleFromItsSeed) {
  uint64_t a = 7, b = 7;
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(choose_tail(shm::TailPolicy::Random, 0xff, 0, 0, a), choose_tail(shm::TailPolicy::Random, 0xff, 0, 0, b));
}

TEST(TailChooser, RoundRobinTakesTheNextEnabledAfterTheLast) {
  uint64_t rng = 0;
  EXPECT_EQ(choose_tail(shm::TailPolicy::RoundRobin, 0b1011, 0, 0, rng), 1u);
  EXPECT_EQ(choose_tail(shm::TailPolicy::RoundRobin, 0b1011, 0, 1, rng), 3u);
  EXPECT_EQ(choose_tail(shm::TailPolicy::RoundRobin, 0b1011, 0, 3, rng), 0u) << "wraps around";
  EXPECT_EQ(choose_tail(shm::TailPolicy::RoundRobin, uint64_t(1) << 63, 0, 5, rng), 63u);
  EXPECT_EQ(choose_tail(shm::TailPolicy::RoundRobin, 1, 0, 63, rng), 0u);
}

TEST(TailChooser, StickyKeepsTheCurrentThreadWhileItCanRun) {
  uint64_t rng = 0;
  EXPECT_EQ(choose_tail(shm::TailPolicy::Sticky, 0b110, 2, 1, rng), 2u);
  EXPECT_EQ(choose_tail(shm::TailPolicy::Sticky, 0b110, 0, 1, rng), 1u);
}

TEST(Strategies, RandomGivesAFreshSeedPerExecution) {
  auto s = make_strategy("random", 1);
  auto a = s->next(), b = s->next();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->policy, shm::TailPolicy::Random);
  EXPECT_NE(a->seed, b->seed);
  EXPECT_TRUE(a->prefix.empty());
  EXPECT_EQ(make_strategy("random", 1)->next()->seed, a->seed) << "same --seed, same executions";
  EXPECT_FALSE(s->exhaustive());
}

TEST(Strategies, RoundRobinRunsOnce) {
  auto s = make_strategy("round-robin", 0);
  EXPECT_TRUE(s->next());
  EXPECT_FALSE(s->next());
}

TEST(Strategies, UnknownNameIsRefused) { EXPECT_THROW(make_strategy("dfs-ish", 0), std::invalid_argument); }

}  // namespace
