// ProbingStrategy (the default strategy, dpor+probes): the systematic search
// inside it plans exactly what it plans alone, and is the only judge of
// exhaustiveness; probes start once its budget is spent, alternate with its
// executions and stop with it.
#include "ProbingStrategy.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "DporStrategy.h"
#include "SimulatedProgram.h"
#include "TailChooser.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

constexpr uint64_t X = 0x1000;

struct Explored {
  std::vector<ExecutionPlan> plans;  // in next()'s order
};

Explored explore(Strategy& s, const Program& p) {
  Explored r;
  while (auto plan = s.next()) {
    r.plans.push_back(*plan);
    Outcome o = simulate(p, *plan);
    ExecutionSummary sum;
    sum.events = o.events.data();
    sum.steps = o.events.size();
    sum.blocked = o.blocked;
    sum.complete = !o.blocked;
    s.completed(sum);
  }
  return r;
}

// Two threads of `n` increments each: C(2n, n) classes.
Program increments(int n) {
  Program p;
  for (int t = 0; t < 2; ++t) {
    p.threads.emplace_back();
    for (int i = 0; i < n; ++i) p.threads.back().push_back({OpKind::AtomicRmw, X, 1});
  }
  return p;
}

std::vector<ExecutionPlan> searched(const Explored& r) {
  std::vector<ExecutionPlan> out;
  for (const auto& p : r.plans)
    if (!p.probe) out.push_back(p);
  return out;
}

}  // namespace

TEST(ProbingStrategy, SmallSearchRunsAloneAndUnchanged) {
  Program p = increments(3);  // 20 classes, well within the budget
  DporStrategy alone;
  Explored a = explore(alone, p);
  ProbingStrategy probing(std::make_unique<DporStrategy>(), 1);
  Explored b = explore(probing, p);
  ASSERT_EQ(a.plans.size(), b.plans.size());
  for (size_t k = 0; k < a.plans.size(); ++k) {
    EXPECT_TRUE(same_plan(a.plans[k], b.plans[k])) << k;
    EXPECT_FALSE(b.plans[k].probe) << k;
  }
  EXPECT_EQ(a.plans.size(), count_classes(p));
  EXPECT_TRUE(probing.exhaustive());
}

TEST(ProbingStrategy, ProbesAlternateAfterTheBudgetAndStopWithTheSearch) {
  Program p = increments(6);  // C(12, 6) = 924 classes: more than the budget
  DporStrategy alone;
  Explored a = explore(alone, p);
  ASSERT_EQ(a.plans.size(), 924u);
  ASSERT_GT(a.plans.size(), ProbingStrategy::kAloneExecutions);
  ProbingStrategy probing(std::make_unique<DporStrategy>(), 1);
  Explored b = explore(probing, p);
  // The search's own plans are DPOR's, in its order, all of them.
  std::vector<ExecutionPlan> own = searched(b);
  ASSERT_EQ(own.size(), a.plans.size());
  for (size_t k = 0; k < own.size(); ++k) EXPECT_TRUE(same_plan(own[k], a.plans[k])) << k;
  EXPECT_TRUE(probing.exhaustive());
  // None in the budget, then one before each of the search's executions.
  const uint64_t budget = ProbingStrategy::kAloneExecutions;
  for (uint64_t k = 0; k < budget; ++k) EXPECT_FALSE(b.plans[k].probe) << k;
  ASSERT_LT(a.plans.size() - budget, ProbingStrategy::kEagerProbes);  // all eager
  for (uint64_t k = budget; k < b.plans.size(); ++k) EXPECT_EQ(b.plans[k].probe, (k - budget) % 2 == 0) << k;
  EXPECT_EQ(b.plans.size(), a.plans.size() + (a.plans.size() - budget));
  EXPECT_FALSE(b.plans.back().probe);  // nothing after the search's last
  EXPECT_EQ(probing.probes_planned(), a.plans.size() - budget);
  // Sampled, in turn: POS, PCT (depth 2), POS, PCT (depth 3).
  std::vector<ExecutionPlan> probes;
  for (const auto& q : b.plans)
    if (q.probe) probes.push_back(q);
  ASSERT_GE(probes.size(), 4u);
  EXPECT_EQ(probes[0].policy, shm::TailPolicy::Pos);
  EXPECT_EQ(probes[1].policy, shm::TailPolicy::Pct);
  EXPECT_EQ(probes[1].pct_depth & ~kPctWritePoints, 2u);
  EXPECT_EQ(probes[2].policy, shm::TailPolicy::Pos);
  EXPECT_EQ(probes[3].pct_depth & ~kPctWritePoints, 3u);
  EXPECT_NE(probes[0].seed, probes[2].seed);
}

TEST(ProbingStrategy, AfterTheEagerProbesOnePerLateSpacing) {
  Program p = increments(8);  // C(16, 8) = 12,870 classes
  ProbingStrategy probing(std::make_unique<DporStrategy>(), 1);
  Explored b = explore(probing, p);
  std::vector<ExecutionPlan> own = searched(b);
  ASSERT_EQ(own.size(), 12870u);
  EXPECT_TRUE(probing.exhaustive());
  const uint64_t budget = ProbingStrategy::kAloneExecutions, eager = ProbingStrategy::kEagerProbes;
  const uint64_t spacing = ProbingStrategy::kLateSpacing;
  // The search's executions before each probe.
  std::vector<uint64_t> before;
  uint64_t n = 0;
  for (const auto& q : b.plans) {
    if (q.probe)
      before.push_back(n);
    else
      ++n;
  }
  ASSERT_GT(before.size(), eager + 10);
  for (uint64_t k = 0; k < eager; ++k) ASSERT_EQ(before[k], budget + k) << k;
  for (uint64_t k = eager; k < before.size(); ++k) ASSERT_EQ(before[k] - before[k - 1], spacing) << k;
  EXPECT_EQ(before.size(), eager + (own.size() - (budget + eager)) / spacing);
}

TEST(ProbingStrategy, IsTheFactorysDefaultName) {
  auto s = make_strategy("dpor+probes", 1);
  EXPECT_NE(dynamic_cast<ProbingStrategy*>(s.get()), nullptr);
  EXPECT_EQ(s->name(), "dpor+probes");
  EXPECT_EQ(make_strategy("dpor", 1)->name(), "dpor");
}

namespace {

// A search of `n` sticky executions, whatever they show.
class Countdown final : public Strategy {
 public:
  explicit Countdown(uint64_t n) : n_(n) {}
  std::string name() const override { return "countdown"; }
  std::optional<ExecutionPlan> next() override {
    if (n_ == 0) return std::nullopt;
    --n_;
    return ExecutionPlan{};
  }

 private:
  uint64_t n_;
};

// The plans of a search whose executions all take `steps` steps and are
// cut by --max-steps or not.
std::vector<ExecutionPlan> plans_of(Strategy& s, uint64_t steps, bool cut) {
  std::vector<ExecutionPlan> plans;
  while (auto plan = s.next()) {
    plans.push_back(*plan);
    ExecutionSummary sum;
    sum.steps = steps;
    sum.complete = !cut;
    s.completed(sum);
  }
  return plans;
}

}  // namespace

TEST(ProbingStrategy, ProbesOnceTheSearchCutsOrRunsLong) {
  // Cut executions: after kAloneCuts of them.
  ProbingStrategy cut(std::make_unique<Countdown>(20), 1);
  auto plans = plans_of(cut, 10, true);
  ASSERT_EQ(plans.size(), 20 + (20 - ProbingStrategy::kAloneCuts));
  for (uint64_t k = 0; k < plans.size(); ++k)
    EXPECT_EQ(plans[k].probe, k >= ProbingStrategy::kAloneCuts && (k - ProbingStrategy::kAloneCuts) % 2 == 0) << k;
  // Complete ones as short: not before kAloneExecutions.
  ProbingStrategy complete(std::make_unique<Countdown>(20), 1);
  for (const auto& p : plans_of(complete, 10, false)) EXPECT_FALSE(p.probe);
  // Long ones: once kAloneSteps have run.
  const uint64_t long_steps = ProbingStrategy::kAloneSteps / 4;
  ProbingStrategy long_ones(std::make_unique<Countdown>(6), 1);
  plans = plans_of(long_ones, long_steps, false);
  ASSERT_EQ(plans.size(), 6u + 2u);
  EXPECT_FALSE(plans[3].probe);
  EXPECT_TRUE(plans[4].probe);
}
