// Shallowest goals first, for --strategy sat (SatEncoder.h): the round's
// goals cut into growing tiers by the depth of their node in its thread's
// history, so that the solver is first asked for a goal near the start of
// some thread before any goal at all.
//
// Why: a round's "some goal" call lets the solver pick any open goal, and
// on a long graph it picks deep ones (the fifth dequeue of a queue) whose
// executions teach the next round more deep goals, while a shallow bug (a
// node read before its value was written, in the first dequeue) waits. The
// paper's search order is the solver's too; this only changes which goal a
// satisfiable round reaches first, never whether a round is satisfiable
// (the last tier is every goal). The newest history first is a depth-first
// walk along what each execution opened: it follows the queue's chain (a
// link seen early, the unwritten value, the next dequeue) where the
// solver's own pick jumps between histories; the encoder bounds its runs
// (SatEncoder::solve_tiers), since a retry loop opens new histories
// forever.
//
// Invariants: tiers are cumulative (each holds every goal of the one before)
// and strictly grow; none holds every goal (that is the round's own call);
// a tier's depth bound at least doubles from one tier to the next, so a
// round asks at most log2(deepest) + 1 tier questions before its own.
#pragma once

#include <cstdint>
#include <vector>

#include "SatEventGraph.h"

namespace ctrl {

struct SatGoalTier {
  uint32_t depth = 0;      // every goal whose node is at most this deep
  std::vector<int> goals;  // their literals
};

// `goals` per node (SatEncoder's goal_): the tiers. First, when they are
// not all, the goals of nodes numbered `fresh_from` or later (what the last
// execution added: the history a goal just opened, followed further before
// the rest); then by depth, shallowest first.
std::vector<SatGoalTier> sat_goal_tiers(const SatEventGraph& graph, const std::vector<std::vector<int>>& goals,
                                        uint32_t fresh_from);

}  // namespace ctrl
