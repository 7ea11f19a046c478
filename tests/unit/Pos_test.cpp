// Partial order sampling's chooser (analyses/TailChooser.h, PosChooser).
#include <gtest/gtest.h>

#include "RandomStrategy.h"
#include "TailChooser.h"

namespace ctrl {
namespace {

TEST(PosChooser, TheEnabledThreadWithTheHighestPriorityRuns) {
  PosChooser pos;
  pos.priority[0] = 5;
  pos.priority[1] = 9;
  pos.priority[2] = 7;
  pos.priority[3] = 100;
  EXPECT_EQ(pos.choose(0b0111), 1u);
  EXPECT_EQ(pos.choose(0b0101), 2u);
  EXPECT_EQ(pos.choose(0b1111), 3u);
  EXPECT_EQ(pos.choose(0b0001), 0u);
}

TEST(PosChooser, PrioritiesComeFromTheSeedAlone) {
  uint64_t a = 42, b = 42, c = 43;
  PosChooser x, y, z;
  x.reset(a);
  y.reset(b);
  z.reset(c);
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) EXPECT_EQ(x.priority[t], y.priority[t]);
  bool differs = false;
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) differs |= x.priority[t] != z.priority[t];
  EXPECT_TRUE(differs);
  x.redraw(3, a);
  y.redraw(3, b);
  EXPECT_EQ(x.priority[3], y.priority[3]);
  EXPECT_EQ(x.priority[4], y.priority[4]) << "a redraw changes that thread's priority only";
}

// Redrawing a thread's priority after each of its operations makes every
// decision between two threads a fair coin: over many executions thread 1
// overtakes thread 0 about half the time at each step, whatever it did.
TEST(PosChooser, ARedrawnPairIsOrderedEitherWayAboutEqually) {
  uint64_t rng = 7;
  int first = 0;
  for (int i = 0; i < 20000; ++i) {
    PosChooser pos;
    pos.reset(rng);
    first += pos.choose(0b11) == 0;
  }
  EXPECT_GT(first, 9400);
  EXPECT_LT(first, 10600);
}

TEST(PosStrategy, PlansCarryThePolicyAndTheRandomSeeds) {
  RandomStrategy pos(5, shm::TailPolicy::Pos), random(5);
  EXPECT_EQ(pos.name(), "pos");
  auto a = pos.next(), b = random.next();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->policy, shm::TailPolicy::Pos);
  EXPECT_EQ(a->seed, b->seed);
  auto c = pos.next(), d = random.next();
  ASSERT_TRUE(c && d);
  EXPECT_EQ(c->policy, shm::TailPolicy::Pos);
  EXPECT_EQ(c->seed, d->seed);
  EXPECT_NE(c->seed, a->seed);
}

}  // namespace
}  // namespace ctrl
