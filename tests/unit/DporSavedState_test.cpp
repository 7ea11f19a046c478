// --state/--resume under --strategy dpor (analyses/DporSavedState.cpp): a
// source-DPOR search saved between two executions, at every point of its
// run, and put back into a fresh strategy goes on with the same plans as
// the search never stopped, to the same executions in all: nothing lost,
// nothing run twice.
#include <gtest/gtest.h>

#include <vector>

#include "DporStrategy.h"
#include "SimulatedProgram.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

constexpr uint64_t X = 0x1000, Y = 0x2000, M = 0x3000;

// The plans' prefixes of a whole search, switching to a strategy restored
// from the saved state after `stop` executions (none: never).
std::vector<std::vector<uint32_t>> explore(const Program& p, uint64_t stop, uint64_t* complete) {
  auto s = std::make_unique<DporStrategy>();
  std::vector<std::vector<uint32_t>> plans;
  *complete = 0;
  for (uint64_t n = 0;; ++n) {
    if (n == stop) {
      std::vector<uint64_t> state = s->saved_state();
      auto resumed = std::make_unique<DporStrategy>();
      EXPECT_TRUE(resumed->restore_state(n, state)) << "after " << n;
      s = std::move(resumed);
    }
    std::optional<ExecutionPlan> plan = s->next();
    if (!plan) break;
    plans.push_back(plan->prefix);
    Outcome o = simulate(p, *plan);
    if (!o.blocked) ++*complete;
    s->completed(summary_of(o, n));
  }
  EXPECT_TRUE(s->exhaustive());
  return plans;
}

void expect_resumable(const Program& p, const char* what) {
  uint64_t whole_complete = 0;
  auto whole = explore(p, UINT64_MAX, &whole_complete);
  EXPECT_EQ(whole_complete, count_classes(p)) << what;
  for (uint64_t stop = 0; stop <= whole.size(); ++stop) {
    uint64_t complete = 0;
    EXPECT_EQ(explore(p, stop, &complete), whole) << what << ", resumed after " << stop;
    EXPECT_EQ(complete, whole_complete) << what << ", resumed after " << stop;
  }
}

}  // namespace

TEST(DporSavedState, ResumedAnywhereRunsTheSamePlans) {
  Program readers;
  readers.threads.push_back({{OpKind::AtomicStore, X, 1}});
  for (int i = 0; i < 3; ++i) readers.threads.push_back({{OpKind::AtomicLoad, X}});
  expect_resumable(readers, "writer and 3 readers");

  Program locked;
  for (int t = 0; t < 3; ++t)
    locked.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  expect_resumable(locked, "3 critical sections");

  Program sb;
  sb.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  sb.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  sb.threads.push_back({{OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, X, 2}});
  expect_resumable(sb, "store buffering and a third thread");
}

TEST(DporSavedState, RefusesWhatItDidNotSave) {
  DporStrategy s;
  EXPECT_FALSE(s.restore_state(0, {}));
  EXPECT_FALSE(s.restore_state(0, {1, 2, 3}));
  DporStrategy optimal(true);
  EXPECT_TRUE(optimal.saved_state().empty());
  // Another fixed prefix than the one saved with the stack.
  DporStrategy a;
  std::vector<uint64_t> state = a.saved_state();
  DporStrategy b;
  b.set_fixed_prefix({0, 1});
  EXPECT_FALSE(b.restore_state(0, state));
}
