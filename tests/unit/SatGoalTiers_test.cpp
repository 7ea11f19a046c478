// The goal tiers of --strategy sat (analyses/SatGoalTiers.h) on a merged
// graph: shallowest first, cumulative, never every goal, and the newest
// history first when there is one.
#include "SatGoalTiers.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "SimulatedProgram.h"

namespace ctrl {
namespace {

constexpr uint64_t kX = 0x1000;

// T0 stores 1, 2, 3 to x; T1 loads x eight times. One execution, T0 first:
// every load read 3, so each can still read 0, 1 or 2 (its goals).
SatEventGraph eight_loads() {
  sim::Program p;
  p.threads = {{{OpKind::AtomicStore, kX, 1}, {OpKind::AtomicStore, kX, 2}, {OpKind::AtomicStore, kX, 3}},
               std::vector<sim::Op>(8, sim::Op{OpKind::AtomicLoad, kX})};
  ExecutionPlan plan;
  plan.prefix = {0, 0, 0};
  auto o = sim::simulate(p, plan);
  SatEventGraph g;
  EXPECT_TRUE(g.merge(o.events.data(), o.events.size())) << g.why();
  return g;
}

// One made-up literal per read node of T1 (node id + 1): what a tier holds
// is read back as nodes.
std::vector<std::vector<int>> one_goal_per_load(const SatEventGraph& g) {
  std::vector<std::vector<int>> goals(g.nodes().size());
  for (uint32_t n = 0; n < g.nodes().size(); ++n)
    if (g.nodes()[n].known && g.nodes()[n].role == SatRole::Read) goals[n].push_back(int(n) + 1);
  return goals;
}

TEST(SatGoalTiers, ShallowestFirstCumulativeAndNeverEveryGoal) {
  SatEventGraph g = eight_loads();
  auto goals = one_goal_per_load(g);
  size_t total = 0;
  uint32_t shallowest = UINT32_MAX;
  for (uint32_t n = 0; n < goals.size(); ++n)
    if (!goals[n].empty()) total += goals[n].size(), shallowest = std::min(shallowest, g.nodes()[n].depth);
  ASSERT_EQ(total, 8u);
  // No node is new since a last round: depth tiers only.
  auto tiers = sat_goal_tiers(g, goals, uint32_t(g.nodes().size()));
  ASSERT_GE(tiers.size(), 2u);
  EXPECT_EQ(tiers.front().depth, shallowest);
  EXPECT_EQ(tiers.front().goals.size(), 1u);
  for (size_t i = 0; i < tiers.size(); ++i) {
    EXPECT_LT(tiers[i].goals.size(), total);
    for (int lit : tiers[i].goals) EXPECT_LE(g.nodes()[uint32_t(lit - 1)].depth, tiers[i].depth);
    if (i == 0) continue;
    EXPECT_GT(tiers[i].goals.size(), tiers[i - 1].goals.size());
    EXPECT_GE(tiers[i].depth, 2 * tiers[i - 1].depth);
    for (int lit : tiers[i - 1].goals)
      EXPECT_NE(std::find(tiers[i].goals.begin(), tiers[i].goals.end(), lit), tiers[i].goals.end());
  }
}

TEST(SatGoalTiers, TheNewestHistoryFirst) {
  SatEventGraph g = eight_loads();
  auto goals = one_goal_per_load(g);
  // The deepest load's node as if the last execution had just added it.
  uint32_t deepest = 0;
  for (uint32_t n = 0; n < goals.size(); ++n)
    if (!goals[n].empty() && g.nodes()[n].depth >= g.nodes()[deepest].depth) deepest = n;
  for (uint32_t n = deepest + 1; n < goals.size(); ++n) goals[n].clear();
  auto tiers = sat_goal_tiers(g, goals, deepest);
  ASSERT_FALSE(tiers.empty());
  EXPECT_EQ(tiers.front().goals, std::vector<int>{int(deepest) + 1});
  // Every goal new: no tier (the round's own call asks for all of them).
  EXPECT_TRUE(sat_goal_tiers(g, goals, 0).size() == tiers.size() - 1);
}

}  // namespace
}  // namespace ctrl
