#include "SatGoalTiers.h"

#include <algorithm>

namespace ctrl {

std::vector<SatGoalTier> sat_goal_tiers(const SatEventGraph& graph, const std::vector<std::vector<int>>& goals,
                                        uint32_t fresh_from) {
  const auto& nodes = graph.nodes();
  std::vector<std::pair<uint32_t, uint32_t>> by_depth;  // (depth, node) of each node with goals
  size_t total = 0;
  for (uint32_t n = 0; n < goals.size() && n < nodes.size(); ++n)
    if (!goals[n].empty()) by_depth.emplace_back(nodes[n].depth, n), total += goals[n].size();
  std::sort(by_depth.begin(), by_depth.end());
  std::vector<SatGoalTier> tiers;
  if (by_depth.empty()) return tiers;
  std::vector<int> fresh;
  for (uint32_t n = fresh_from; n < goals.size(); ++n) fresh.insert(fresh.end(), goals[n].begin(), goals[n].end());
  if (!fresh.empty() && fresh.size() < total) tiers.push_back({UINT32_MAX, fresh});
  std::vector<int> acc;
  size_t i = 0;
  // The first bound is the shallowest goal's depth; then 2d + 1.
  for (uint32_t bound = by_depth.front().first;; bound = 2 * bound + 1) {
    size_t before = acc.size();
    for (; i < by_depth.size() && by_depth[i].first <= bound; ++i)
      acc.insert(acc.end(), goals[by_depth[i].second].begin(), goals[by_depth[i].second].end());
    if (acc.size() == total) break;  // every goal: the round's own call
    if (acc.size() > before) tiers.push_back({bound, acc});
  }
  return tiers;
}

}  // namespace ctrl
