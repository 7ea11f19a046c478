// Fair scheduling of yields (analyses/FairYields.h): the rule itself, and
// DPOR under it on simulated programs (SimulatedProgram.h applies the rule
// in its tail as the agent does).
#include "FairYields.h"

#include <gtest/gtest.h>

#include <set>

#include "DporStrategy.h"
#include "SimulatedProgram.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

constexpr uint64_t b(uint32_t t) { return uint64_t(1) << t; }
constexpr uint64_t X = 0x1000;

TEST(FairYields, FirstYieldHoldsNothing) {
  FairYields f;
  EXPECT_EQ(f.allowed(b(0) | b(1)), b(0) | b(1));
  f.ran(0, true, b(0) | b(1));
  EXPECT_EQ(f.allowed(b(0) | b(1)), b(0) | b(1));
}

TEST(FairYields, SecondYieldGivesWayUntilTheOtherRuns) {
  FairYields f;
  const uint64_t both = b(0) | b(1);
  f.allowed(both);
  f.ran(0, true, both);
  f.allowed(both);
  f.ran(0, false, both);  // a step between the yields (a re-read)
  f.allowed(both);
  f.ran(0, true, both);  // T1 was enabled at the first yield and has not run
  EXPECT_EQ(f.allowed(both), b(1));
  f.ran(1, false, both);
  EXPECT_EQ(f.allowed(both), both);  // T1 ran: the edge is gone
  // T1 ran within the window that T0's next yield closes: no edge. The
  // yield after that, with T1 idle since, holds T0 back again.
  f.ran(0, true, both);
  EXPECT_EQ(f.allowed(both), both);
  f.ran(0, true, both);
  EXPECT_EQ(f.allowed(both), b(1));
}

TEST(FairYields, YieldingAloneRunsOn) {
  FairYields f;
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(f.allowed(b(0)), b(0));
    f.ran(0, true, b(0));
  }
  // A thread that was not enabled at the previous yield is not waited for.
  EXPECT_EQ(f.allowed(b(0) | b(2)), b(0) | b(2));
  f.ran(0, true, b(0) | b(2));
  EXPECT_EQ(f.allowed(b(0) | b(2)), b(0) | b(2));
}

TEST(FairYields, ADisabledThreadDoesNotHoldButCountsWhenBack) {
  FairYields f;
  const uint64_t both = b(0) | b(1);
  f.allowed(both);
  f.ran(0, true, both);
  f.allowed(b(0));  // T1 blocked meanwhile (disabled since T0's yield)
  f.ran(0, true, b(0));
  EXPECT_EQ(f.allowed(b(0)), b(0));  // T0 gives way to T1, but T1 cannot run
  EXPECT_EQ(f.allowed(both), b(1));  // back, and not run since: T1 first
}

// Whatever the schedule, some enabled thread is always allowed (the
// relation stays acyclic) and only enabled threads are.
TEST(FairYields, NeverStarvesEveryone) {
  uint64_t rng = 7;
  for (int run = 0; run < 200; ++run) {
    FairYields f;
    for (int step = 0; step < 300; ++step) {
      uint64_t enabled = next_random(rng) & 0x1f;
      if (!enabled) enabled = b(uint32_t(next_random(rng) % 5));
      uint64_t ok = f.allowed(enabled);
      ASSERT_NE(ok, 0u);
      ASSERT_EQ(ok & ~enabled, 0u);
      uint32_t n = uint32_t(__builtin_popcountll(ok));
      uint64_t m = ok;
      for (uint32_t k = uint32_t(next_random(rng) % n); k--;) m &= m - 1;
      f.ran(uint32_t(__builtin_ctzll(m)), next_random(rng) % 2 == 0, enabled);
    }
  }
}

struct Explored {
  uint64_t complete = 0, blocked = 0, cuts = 0;
  bool exhaustive = false;
  std::set<std::vector<uint64_t>> outcomes;
};

Explored explore(const Program& p) {
  DporStrategy dpor;
  Explored r;
  for (int i = 0; i < 10000; ++i) {
    auto plan = dpor.next();
    if (!plan) break;
    Outcome o = simulate(p, *plan);
    dpor.completed(summary_of(o, uint64_t(i)));
    if (o.blocked) {
      ++r.blocked;
    } else {
      ++r.complete;
      r.outcomes.insert(o.reads);
    }
  }
  r.exhaustive = dpor.exhaustive();
  r.cuts = dpor.fairness_cuts();
  return r;
}

Op yield() { return Op{OpKind::Yield}; }
Op st(uint64_t a, uint64_t v) { return Op{OpKind::AtomicStore, a, v}; }
Op ld(uint64_t a) { return Op{OpKind::AtomicLoad, a}; }

// One yield before the store: nothing is held back, both orders run and the
// search is plainly exhaustive.
TEST(FairDpor, OneYieldCutsNothing) {
  Program p;
  p.threads = {{yield(), st(X, 1)}, {ld(X)}};
  Explored r = explore(p);
  EXPECT_EQ(r.complete, 2u);
  EXPECT_EQ(r.outcomes.size(), 2u);
  EXPECT_EQ(r.cuts, 0u);
  EXPECT_TRUE(r.exhaustive);
}

// Two yields in a row while T1 idles: T0 gives way, so its store can no
// longer come before T1's load. The search covers every fair schedule and
// says what it held back: the reversal that wanted T0 there.
TEST(FairDpor, SecondYieldIsAFairnessCut) {
  Program p;
  p.threads = {{yield(), yield(), st(X, 1)}, {ld(X)}};
  Explored r = explore(p);
  EXPECT_EQ(r.complete, 1u);
  EXPECT_EQ(r.outcomes, (std::set<std::vector<uint64_t>>{{0}}));
  EXPECT_EQ(r.cuts, 1u);
  EXPECT_TRUE(r.exhaustive);  // of the fair schedules; fairness_cuts() says the rest
}

// A loop with yields (unrolled): the waiter's re-reads race with the store,
// and every fair order of the store among the re-reads runs; no execution
// runs the waiter past its second yield while the writer idles.
TEST(FairDpor, RetryLoopRunsOnlyFairSchedules) {
  Program p;
  p.threads = {{ld(X), yield(), ld(X), yield(), ld(X), yield(), ld(X)}, {st(X, 1)}};
  Explored r = explore(p);
  EXPECT_TRUE(r.exhaustive);
  EXPECT_EQ(r.blocked, 0u);
  // The store before the first, second or third read; after the third the
  // waiter would be past its second yield with T1 idle.
  EXPECT_EQ(r.complete, 3u);
  EXPECT_GT(r.cuts, 0u);
  for (const auto& o : r.outcomes) EXPECT_EQ(o.back(), 1u) << "the last read never misses the store";
}

}  // namespace
