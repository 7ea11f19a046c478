// PCT (probabilistic concurrency testing): the in-agent chooser's
// priorities and change points (over steps, or over write steps), the
// strategy's plans, the weaker yield rule of its write points, and the
// probability bounds on simulated programs whose bug depth is known.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "FairYields.h"
#include "PctStrategy.h"
#include "SimulatedProgram.h"
#include "TailChooser.h"

using namespace ctrl;

namespace {

PctChooser chooser(uint32_t depth, std::vector<uint64_t> changes = {}) {
  uint64_t c[shm::kMaxPctDepth - 1];
  for (uint32_t i = 0; i + 1 < shm::kMaxPctDepth; ++i) c[i] = i < changes.size() ? changes[i] : UINT64_MAX;
  PctChooser p;
  p.reset(depth, c);
  return p;
}

TEST(PctChooser, InitialPrioritiesAreDistinctFromTheDepthUp) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    PctChooser p = chooser(3);
    uint64_t rng = seed;
    // Threads appear one at a time, as they are created.
    for (uint32_t n = 1; n <= 6; ++n) p.choose((uint64_t(1) << n) - 1, n, rng);
    std::set<uint32_t> priorities;
    for (uint32_t t = 0; t < 6; ++t) priorities.insert(p.priority(t));
    EXPECT_EQ(priorities, (std::set<uint32_t>{3, 4, 5, 6, 7, 8})) << "seed " << seed;
  }
}

TEST(PctChooser, RunsTheHighestPriorityEnabledThread) {
  PctChooser p = chooser(2);
  uint64_t rng = 11;
  uint32_t first = p.choose(0b111, 0, rng);
  for (uint32_t t = 0; t < 3; ++t) EXPECT_LE(p.priority(t), p.priority(first));
  // Without change points the same thread runs while it can.
  for (uint64_t step = 1; step < 20; ++step) EXPECT_EQ(p.choose(0b111, step, rng), first);
  // Then the next one down.
  uint64_t others = 0b111 & ~(uint64_t(1) << first);
  uint32_t second = p.choose(others, 20, rng);
  EXPECT_NE(second, first);
  uint32_t third = uint32_t(__builtin_ctzll(others & ~(uint64_t(1) << second)));
  EXPECT_GT(p.priority(second), p.priority(third));
}

// Thread t joins when it is first enabled: the orders of 3 threads created
// one after another are uniformly random, as a random permutation of the
// priorities d .. d+2 would give.
TEST(PctChooser, PriorityOrdersAreUniform) {
  std::map<std::vector<uint32_t>, int> orders;
  const int runs = 60000;
  for (int seed = 0; seed < runs; ++seed) {
    PctChooser p = chooser(3);
    uint64_t rng = execution_seed(5, uint64_t(seed));
    p.choose(0b1, 0, rng);
    p.choose(0b11, 1, rng);
    p.choose(0b111, 2, rng);
    std::vector<uint32_t> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return p.priority(a) > p.priority(b); });
    ++orders[order];
  }
  ASSERT_EQ(orders.size(), 6u);
  for (const auto& [order, n] : orders) EXPECT_NEAR(n, runs / 6, 400) << order[0] << order[1] << order[2];
}

TEST(PctChooser, ChangePointDropsTheThreadAboutToRunBelowEveryInitialPriority) {
  // Change point 1 at step 4, change point 2 at step 2.
  PctChooser p = chooser(3, {4, 2});
  uint64_t rng = 3;
  uint32_t top = p.choose(0b111, 0, rng);
  EXPECT_EQ(p.choose(0b111, 1, rng), top);
  uint32_t next = p.choose(0b111, 2, rng);
  EXPECT_NE(next, top) << "lowered at step 2, before it ran";
  EXPECT_EQ(p.priority(top), 2u) << "the second change point gives priority 2";
  EXPECT_EQ(p.choose(0b111, 3, rng), next);
  uint32_t last = p.choose(0b111, 4, rng);
  EXPECT_EQ(p.priority(next), 1u);
  EXPECT_NE(last, top);
  EXPECT_NE(last, next);
  EXPECT_GE(p.priority(last), 3u);
  // Lowered threads keep their order among themselves (2 above 1).
  EXPECT_EQ(p.choose(uint64_t(1) << top | uint64_t(1) << next, 5, rng), top);
}

TEST(PctChooser, SameSeedSameChoices) {
  auto run = [](uint64_t seed) {
    PctChooser p = chooser(3, {7, 13});
    uint64_t rng = seed;
    std::vector<uint32_t> choices;
    for (uint64_t step = 0; step < 40; ++step) {
      uint64_t enabled = (step % 5 == 4 ? 0b10110 : 0b11111) & ((uint64_t(1) << (1 + step / 3)) - 1);
      choices.push_back(p.choose(enabled ? enabled : 1, step, rng));
    }
    return choices;
  };
  EXPECT_EQ(run(99), run(99));
  bool differ = false;
  for (uint64_t seed = 100; seed < 110 && !differ; ++seed) differ = run(seed) != run(99);
  EXPECT_TRUE(differ);
}

TEST(PctStrategy, PlansFromSeedAndIndex) {
  PctStrategy a(1, 3), b(1, 3), c(2, 3);
  auto pa = a.next(), pb = b.next(), pc = c.next();
  ASSERT_TRUE(pa && pb && pc);
  EXPECT_EQ(pa->policy, shm::TailPolicy::Pct);
  EXPECT_EQ(pa->pct_depth, 3u);
  EXPECT_TRUE(same_plan(*pa, *pb)) << "same --seed, same executions";
  EXPECT_FALSE(same_plan(*pa, *pc));
  EXPECT_EQ(pa->seed, execution_seed(1, 0)) << "seeded like random";
  ASSERT_EQ(pa->pct_change.size(), 2u);
  EXPECT_NE(pa->pct_change[0], pa->pct_change[1]);
  for (uint64_t s : pa->pct_change) EXPECT_LT(s, PctStrategy::kDefaultSteps);
  EXPECT_FALSE(a.next()->seed == pa->seed);
  EXPECT_FALSE(a.exhaustive());
}

TEST(PctStrategy, DepthOneHasNoChangePoints) {
  PctStrategy s(4, 1);
  EXPECT_TRUE(s.next()->pct_change.empty());
  EXPECT_THROW(PctStrategy(4, 0), std::invalid_argument);
  EXPECT_THROW(PctStrategy(4, shm::kMaxPctDepth + 1), std::invalid_argument);
  EXPECT_THROW(make_strategy("pct", 1, -1, 0), std::invalid_argument);
  EXPECT_EQ(make_strategy("pct", 1, -1, 2)->name(), "pct");
}

TEST(PctStrategy, LengthIsTheLongestExecutionSeen) {
  PctStrategy s(1, 3);
  ExecutionSummary e;
  s.next();
  e.steps = 40;
  s.completed(e);
  EXPECT_EQ(s.estimated_steps(), 40u) << "the first execution replaces the default";
  s.next();
  e.steps = 25;
  s.completed(e);
  EXPECT_EQ(s.estimated_steps(), 40u);
  for (int i = 0; i < 200; ++i) {
    ExecutionPlan p = *s.next();
    for (uint64_t step : p.pct_change) EXPECT_LT(step, 40u);
  }
  e.steps = 90;
  s.completed(e);
  EXPECT_EQ(s.estimated_steps(), 90u);
}

TEST(PctStrategy, ChangePointsAreUniformAndDistinct) {
  PctStrategy s(8, 3);
  ExecutionSummary e;
  e.steps = 10;
  s.next();
  s.completed(e);
  std::map<uint64_t, int> hits;
  const int runs = 20000;
  for (int i = 0; i < runs; ++i) {
    auto p = s.next();
    ASSERT_EQ(p->pct_change.size(), 2u);
    EXPECT_NE(p->pct_change[0], p->pct_change[1]);
    ++hits[p->pct_change[0]];
  }
  ASSERT_EQ(hits.size(), 10u);
  for (const auto& [step, n] : hits) EXPECT_NEAR(n, runs / 10, 200) << "step " << step;
}

TEST(PctStrategy, ChangePointsComeAfterAFixedPrefix) {
  PctStrategy s(3, 4, PctStrategy::Points::Steps);
  s.set_fixed_prefix({0, 0, 1, 1, 0});
  ExecutionSummary e;
  e.steps = 12;
  s.next();
  s.completed(e);
  for (int i = 0; i < 300; ++i) {
    auto p = s.next();
    EXPECT_EQ(p->prefix, (std::vector<uint32_t>{0, 0, 1, 1, 0}));
    ASSERT_EQ(p->pct_change.size(), 3u);
    for (uint64_t step : p->pct_change) {
      EXPECT_GE(step, 5u);
      EXPECT_LT(step, 12u);
    }
  }
}

TEST(PctChooser, WritePointsCountOnlyWriteStepsWithAChoice) {
  // Change point 1 at the write step with a choice numbered 2 (from 0).
  PctChooser p = chooser(2 | kPctWritePoints, {2});
  ASSERT_TRUE(p.writes_only);
  EXPECT_EQ(p.depth, 2u);
  uint64_t rng = 9;
  const uint64_t both = 0b11;
  uint32_t top = p.choose(both, 0, rng, both);  // write 0
  uint32_t other = 1 - top;
  uint64_t top_bit = uint64_t(1) << top;
  EXPECT_EQ(p.writes, 1u);
  EXPECT_EQ(p.choose(both, 1, rng, 0), top) << "a read: not counted";
  EXPECT_EQ(p.choose(top_bit, 2, rng, top_bit), top) << "no choice: not counted";
  EXPECT_EQ(p.writes, 1u);
  EXPECT_EQ(p.choose(both, 3, rng, both), top);  // write 1
  EXPECT_EQ(p.choose(both, 4, rng, top_bit), other) << "write 2: the change point drops the writer";
  EXPECT_EQ(p.priority(top), 1u);
  EXPECT_EQ(p.writes, 2u) << "the read that ran instead is not counted";
  EXPECT_EQ(p.choose(both, 5, rng, both), other);
  EXPECT_EQ(p.writes, 3u);
  // The plain chooser counts steps: the same depth without the bit.
  PctChooser q = chooser(2, {2});
  EXPECT_FALSE(q.writes_only);
}

TEST(PctStrategy, BothAlternatesStepsAndWrites) {
  PctStrategy s(5, 3);
  ExecutionSummary e;
  e.steps = 400;
  s.next();
  s.completed(e);  // no events: every step may be a write step
  EXPECT_EQ(s.estimated_writes(), 400u);
  for (uint64_t i = 1; i < 200; ++i) {
    ExecutionPlan p = *s.next();
    EXPECT_EQ(s.counts_writes(i), i % 2 == 1);
    EXPECT_EQ((p.pct_depth & kPctWritePoints) != 0, i % 2 == 1) << "execution " << i;
    EXPECT_EQ(p.pct_depth & 0xff, 3u);
    EXPECT_EQ(p.pct_change.size(), 2u);
  }
  PctStrategy steps(5, 3, PctStrategy::Points::Steps), writes(5, 3, PctStrategy::Points::Writes);
  for (uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(steps.next()->pct_depth, 3u);
    EXPECT_EQ(writes.next()->pct_depth, 3u | kPctWritePoints);
  }
}

TEST(PctStrategy, WriteStepsAreCountedFromTheEvents) {
  // Write steps after the prefix (PctChooser counts only those with a
  // choice, a subset: the estimate is an upper bound of its count).
  std::vector<shm::Event> ev(8);
  const OpKind kinds[8] = {OpKind::ThreadCreate, OpKind::AtomicStore, OpKind::AtomicLoad,  OpKind::AtomicCas,
                           OpKind::Yield,        OpKind::AtomicRmw,   OpKind::MutexUnlock, OpKind::ThreadExit};
  const uint64_t enabled[8] = {0b1, 0b11, 0b11, 0b111, 0b11, 0b10, 0b11, 0b1};
  for (int i = 0; i < 8; ++i) ev[size_t(i)].kind = uint16_t(kinds[i]), ev[size_t(i)].enabled = enabled[i];
  PctStrategy s(1, 2, PctStrategy::Points::Writes);
  ExecutionSummary e;
  e.events = ev.data();
  e.steps = ev.size();
  s.next();
  s.completed(e);
  EXPECT_EQ(s.estimated_steps(), 8u);
  EXPECT_EQ(s.estimated_writes(), 6u) << "all but the load and the yield";
  for (int i = 0; i < 100; ++i) {
    ExecutionPlan p = *s.next();
    ASSERT_EQ(p.pct_change.size(), 1u);
    EXPECT_LT(p.pct_change[0], 6u);
  }
  // After a fixed prefix, counted from its end (as the agent counts).
  PctStrategy f(1, 2, PctStrategy::Points::Writes);
  f.set_fixed_prefix({0, 0, 0, 0});
  f.next();
  f.completed(e);
  EXPECT_EQ(f.estimated_writes(), 3u) << "the read-modify-write, the unlock and the exit after the prefix";
}

// The weaker yield rule of PCT's write points (FairYields.h, progress): a
// step of a thread that never yielded ends the holds; the full rule keeps
// the spinner waiting for every thread it saw enabled.
TEST(PctYields, ProgressEndsTheHoldsTheFullRuleKeeps) {
  const uint64_t all = 0b111;  // T0 spins with yields; T1 makes progress; T2 idles
  for (bool progress : {false, true}) {
    FairYields f;
    f.reset(progress);
    f.allowed(all);
    f.ran(0, true, all);
    f.allowed(all);
    f.ran(0, true, all);  // T1 and T2 idle since the first yield: held
    EXPECT_EQ(f.allowed(all), 0b110u);
    f.ran(1, false, all);  // T1 makes progress
    // The full rule still holds T0 for T2.
    EXPECT_EQ(f.allowed(all), progress ? all : 0b110u) << (progress ? "progress" : "full rule");
  }
  // While no thread that never yielded runs, the rule is the full one.
  FairYields f;
  f.reset(true);
  f.allowed(all);
  f.ran(0, true, all);
  f.allowed(all);
  f.ran(1, true, all);
  f.allowed(all);
  f.ran(0, true, all);  // T1 ran (yielding), T2 idle: held on T2
  EXPECT_EQ(f.allowed(all), 0b110u);
  f.ran(1, true, all);  // T1 yields again, T2 still idle: held on T2 too
  EXPECT_EQ(f.allowed(all), 0b100u);
  f.ran(2, false, all);
  EXPECT_EQ(f.allowed(all), all);
}

// The guarantees on simulated programs (the paper's, with change points
// over steps, unless said): T0 stores 1..10 to x, T1 reads x. Each bug is
// a set of values T1 must read; its depth is the number of ordering
// constraints between T0's stores and T1's reads. n = 2 threads, k = 11 or
// 12 steps. Returns the fraction of buggy executions (the first one,
// planned before any length is known, left out).
double bug_rate(uint32_t depth, int t1_reads, const std::function<bool(const std::vector<uint64_t>&)>& bug, int runs,
                shm::TailPolicy policy = shm::TailPolicy::Pct,
                PctStrategy::Points points = PctStrategy::Points::Steps) {
  sim::Program prog;
  prog.threads.resize(2);
  const uint64_t x = 0x1000;
  for (uint64_t v = 1; v <= 10; ++v) prog.threads[0].push_back({OpKind::AtomicStore, x, v});
  for (int i = 0; i < t1_reads; ++i) prog.threads[1].push_back({OpKind::AtomicLoad, x});
  PctStrategy s(77, depth, points);
  int found = 0;
  for (int i = 0; i <= runs; ++i) {
    ExecutionPlan plan = *s.next();
    plan.policy = policy;
    sim::Outcome o = sim::simulate(prog, plan);
    ExecutionSummary e;
    e.steps = o.events.size();
    e.events = o.events.data();
    s.completed(e);
    if (i > 0 && bug(o.reads)) ++found;
  }
  return double(found) / runs;
}

TEST(PctBound, DepthOneBugIsFoundWithProbabilityOneOverN) {
  // T1 reads after every store: one constraint. 1/n = 1/2 exactly (T0 above T1).
  double rate = bug_rate(
      1, 1, [](const auto& r) { return r[0] == 10; }, 20000);
  EXPECT_NEAR(rate, 0.5, 0.02);
  // Random walk: T0's ten stores all before T1's read, 2^-10.
  EXPECT_LT(bug_rate(
                1, 1, [](const auto& r) { return r[0] == 10; }, 20000, shm::TailPolicy::Random),
            0.003);
}

TEST(PctBound, DepthTwoBugMeetsOneOverNK) {
  // T1 reads exactly 5: after store 5, before store 6. Found when T0 is on
  // top and the change point is the step of store 6: 1/2 * 1/11, the bound
  // 1/(n k) with n = 2, k = 11 exactly.
  double rate = bug_rate(
      2, 1, [](const auto& r) { return r[0] == 5; }, 200000);
  EXPECT_NEAR(rate, 1.0 / 22, 0.003);
  // Random walk: T1's read lands after exactly 5 of T0's stores with
  // probability 2^-6.
  EXPECT_NEAR(bug_rate(
                  2, 1, [](const auto& r) { return r[0] == 5; }, 200000, shm::TailPolicy::Random),
              1.0 / 64, 0.002);
}

TEST(PctBound, DepthThreeBugMeetsOneOverNKSquared) {
  // T1 reads 3, then (after every other store) 10: store 3 < read 1 <
  // store 4, store 10 < read 2. T0 on top (1/2), change point 2 at store
  // 4's step (T0 drops to 2), change point 1 at T1's next step (T1 drops
  // to 1, below T0): 1/2 * 1/(12 * 11), above the bound 1/(2 * 12^2).
  double rate = bug_rate(
      3, 2, [](const auto& r) { return r[0] == 3 && r[1] == 10; }, 400000);
  EXPECT_GE(rate, 1.0 / (2 * 12 * 12));
  EXPECT_NEAR(rate, 1.0 / 264, 0.0004);
  // Depth 2 cannot find it: one change point makes one preemption.
  EXPECT_EQ(bug_rate(
                2, 2, [](const auto& r) { return r[0] == 3 && r[1] == 10; }, 20000),
            0.0);
}

// Write points: the depth-2 bug (T1 reads exactly 5) needs T0 preempted
// just before its store 6, a write: T0 on top (1/2) and the change point on
// that store among the w = 10 write steps with a choice (T1's read is no
// write step): 1/20, the bound 1/(n w) with n = 2, w = 10.
TEST(PctBound, WritePointsMeetOneOverNW) {
  double rate = bug_rate(
      2, 1, [](const auto& r) { return r[0] == 5; }, 200000, shm::TailPolicy::Pct, PctStrategy::Points::Writes);
  EXPECT_GE(rate, 1.0 / 20 - 0.002);
  EXPECT_NEAR(rate, 1.0 / 20, 0.002);
}

// What write points give up: the depth-3 bug (T1 reads 3, then 10) needs
// T1 preempted just before its second read. No write step comes between
// T1's reads, so write points never find it; the default alternation keeps
// the paper's bound for its executions over steps, half of them.
TEST(PctBound, WritePointsGiveUpPreemptionsBeforeReads) {
  auto bug = [](const auto& r) { return r[0] == 3 && r[1] == 10; };
  EXPECT_EQ(bug_rate(3, 2, bug, 20000, shm::TailPolicy::Pct, PctStrategy::Points::Writes), 0.0);
  double both = bug_rate(3, 2, bug, 400000, shm::TailPolicy::Pct, PctStrategy::Points::Both);
  EXPECT_GE(both, 1.0 / (2 * 2 * 12 * 12));
  EXPECT_NEAR(both, 1.0 / 528, 0.0003);
}

}  // namespace
