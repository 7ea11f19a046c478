// Exploration from a fixed prefix (Strategy::set_fixed_prefix), on simulated
// programs (SimulatedProgram.h): every plan begins with the prefix, and DPOR
// runs exactly one execution per class among those that begin with it.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "DporStrategy.h"
#include "PreemptionBoundedStrategy.h"
#include "SimulatedProgram.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

constexpr uint64_t X = 0x1000, Y = 0x2000, M = 0x3000;

struct Explored {
  uint64_t complete = 0, blocked = 0;
  std::set<std::vector<uint64_t>> outcomes;
  std::map<Signature, uint64_t> classes;  // of the complete executions: how many in each
  bool exhaustive = false;
  std::vector<std::vector<uint32_t>> plans;      // every plan's prefix
  std::vector<std::vector<uint32_t>> schedules;  // every execution's decisions
};

std::vector<uint32_t> threads_of(const std::vector<shm::Event>& events) {
  std::vector<uint32_t> t;
  for (const auto& e : events) t.push_back(e.thread);
  return t;
}

Explored explore_from(Strategy& strategy, const Program& p, const std::vector<uint32_t>& prefix,
                      uint64_t limit = 10000) {
  strategy.set_fixed_prefix(prefix);
  Explored r;
  for (uint64_t i = 0; i < limit; ++i) {
    auto plan = strategy.next();
    if (!plan) break;
    r.plans.push_back(plan->prefix);
    Outcome o = simulate(p, *plan);
    r.schedules.push_back(threads_of(o.events));
    strategy.completed(summary_of(o, i));
    if (o.blocked) {
      ++r.blocked;
    } else {
      ++r.complete;
      r.outcomes.insert(o.reads);
      ++r.classes[signature_of(p, o.events)];
    }
  }
  r.exhaustive = strategy.exhaustive();
  return r;
}

bool begins_with(const std::vector<uint32_t>& v, const std::vector<uint32_t>& prefix) {
  return v.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), v.begin());
}

// (b): the first k decisions of every plan and of every execution are the
// fixed ones.
void expect_prefix_kept(const Explored& r, const std::vector<uint32_t>& prefix, const std::string& what) {
  for (size_t i = 0; i < r.plans.size(); ++i) {
    EXPECT_TRUE(begins_with(r.plans[i], prefix)) << what << ": plan " << i;
    EXPECT_TRUE(begins_with(r.schedules[i], prefix)) << what << ": execution " << i;
  }
}

std::string show(const std::vector<uint32_t>& v) {
  std::string s = "[";
  for (uint32_t t : v) s += std::to_string(t) + " ";
  return s + "]";
}

// Two threads, each: a critical section incrementing x, then an access to y
// outside it (T0 stores 1, T1 loads).
Program two_sections() {
  Program p;
  p.threads.push_back(
      {{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}, {OpKind::AtomicStore, Y, 1}});
  p.threads.push_back(
      {{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}, {OpKind::AtomicLoad, Y}});
  return p;
}

// (a) By hand: the lock order (2) times the order of T0's store to y and
// T1's load of it (2, whichever section came first: the store and the load
// both follow their thread's unlock) = 4 classes. Fixing T0's lock first
// leaves 2: T0 reads x = 0, T1 reads x = 1, then y = 1 or y = 0.
TEST(FixedPrefix, DporExploresOnlyTheClassesOfTheFirstLockOrder) {
  Program p = two_sections();
  for (bool optimal : {false, true}) {
    const char* mode = optimal ? "optimal" : "source";
    DporStrategy all(optimal);
    Explored whole = explore_from(all, p, {});
    EXPECT_EQ(whole.complete, 4u) << mode;

    DporStrategy dpor(optimal);
    Explored r = explore_from(dpor, p, {0});
    EXPECT_EQ(r.complete, 2u) << mode;
    EXPECT_EQ(r.blocked, 0u) << mode;
    EXPECT_TRUE(r.exhaustive) << mode;
    // Reads in thread order: T0's x, then T1's x and y.
    EXPECT_EQ(r.outcomes, (std::set<std::vector<uint64_t>>{{0, 1, 0}, {0, 1, 1}})) << mode;
    for (const auto& [sig, n] : r.classes) EXPECT_EQ(n, 1u) << mode << ": a class ran twice";
    expect_prefix_kept(r, {0}, mode);
    EXPECT_EQ(count_classes(p, {0}), 2u) << "brute force";

    DporStrategy other(optimal);
    Explored t1 = explore_from(other, p, {1});
    EXPECT_EQ(t1.complete, 2u) << mode;
    EXPECT_EQ(t1.outcomes, (std::set<std::vector<uint64_t>>{{1, 0, 0}, {1, 0, 1}})) << mode;
    expect_prefix_kept(t1, {1}, mode);
  }
}

// Longer prefixes: through T0's section, then T1's (2 classes left: y);
// through T0's store (1 class: T1 then reads y = 1).
TEST(FixedPrefix, DporFromDeeperSteps) {
  Program p = two_sections();
  const std::vector<std::pair<std::vector<uint32_t>, uint64_t>> cases = {
      {{0, 0, 0}, 2}, {{0, 0, 0, 1, 1, 1}, 2}, {{0, 0, 0, 0}, 1}, {{0, 0, 0, 1, 0}, 1}, {{0, 0, 0, 0, 1, 1, 1, 1}, 1}};
  for (bool optimal : {false, true})
    for (const auto& [prefix, classes] : cases) {
      std::string what = std::string(optimal ? "optimal " : "source ") + show(prefix);
      DporStrategy dpor(optimal);
      Explored r = explore_from(dpor, p, prefix);
      EXPECT_EQ(r.complete, classes) << what;
      EXPECT_EQ(count_classes(p, prefix), classes) << what << " (brute force)";
      EXPECT_EQ(r.classes.size(), r.complete) << what << ": a class ran twice";
      EXPECT_TRUE(r.exhaustive) << what;
      expect_prefix_kept(r, prefix, what);
    }
}

// Every prefix of one interleaving per class of a few programs: DPOR (both
// modes) reaches exactly the classes a brute-force search finds among the
// interleavings that begin with it, each once.
TEST(FixedPrefix, DporMatchesBruteForceFromEveryPrefix) {
  std::vector<Program> programs(3);
  programs[0].threads = {{{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}},
                         {{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}},
                         {{OpKind::AtomicLoad, X}, {OpKind::AtomicLoad, Y}}};
  programs[1].threads = {
      {{OpKind::MutexLock, M}, {OpKind::AtomicLoad, X}, {OpKind::MutexUnlock, M}, {OpKind::AtomicStore, X, 5}},
      {{OpKind::AtomicStore, X, 3}, {OpKind::MutexLock, M}, {OpKind::AtomicLoad, X}, {OpKind::MutexUnlock, M}}};
  programs[2].threads = {{{OpKind::AtomicRmw, X, 1}, {OpKind::AtomicRmw, Y, 1}},
                         {{OpKind::AtomicRmw, Y, 1}, {OpKind::AtomicRmw, X, 1}},
                         {xchg(X, 0), cas(Y, 1, 2)}};
  for (size_t i = 0; i < programs.size(); ++i) {
    const Program& p = programs[i];
    std::set<std::vector<uint32_t>> prefixes;
    for (const auto& [sig, events] : classes_of(p)) {
      std::vector<uint32_t> t = threads_of(events);
      for (size_t k = 0; k <= t.size(); ++k) prefixes.insert(std::vector<uint32_t>(t.begin(), t.begin() + k));
    }
    for (const auto& prefix : prefixes) {
      auto expected = classes_of(p, prefix);
      for (bool optimal : {false, true}) {
        std::string what = "program " + std::to_string(i) + (optimal ? " optimal " : " source ") + show(prefix);
        DporStrategy dpor(optimal);
        Explored r = explore_from(dpor, p, prefix);
        EXPECT_EQ(r.complete, expected.size()) << what;
        EXPECT_EQ(r.classes.size(), expected.size()) << what;
        for (const auto& [sig, n] : r.classes) {
          EXPECT_EQ(n, 1u) << what << ": a class ran twice";
          EXPECT_TRUE(expected.count(sig)) << what << ": a class that does not begin with the prefix";
        }
        if (optimal) {
          EXPECT_EQ(r.blocked, 0u) << what;
        }
        EXPECT_TRUE(r.exhaustive) << what;
        expect_prefix_kept(r, prefix, what);
      }
      if (HasFailure()) return;
    }
  }
}

// (c) Random and round-robin only choose after the prefix.
TEST(FixedPrefix, RandomAndRoundRobinKeepIt) {
  Program p = two_sections();
  const std::vector<uint32_t> prefix = {1, 1, 1, 0};
  auto random = make_strategy("random", 7);
  Explored r = explore_from(*random, p, prefix, 50);
  EXPECT_EQ(r.plans.size(), 50u);
  expect_prefix_kept(r, prefix, "random");
  // The tail is random: both orders of T0's store and T1's load show up.
  EXPECT_EQ(r.outcomes, (std::set<std::vector<uint64_t>>{{1, 0, 0}, {1, 0, 1}}));
  EXPECT_FALSE(r.exhaustive);

  auto rr = make_strategy("round-robin", 0);
  Explored o = explore_from(*rr, p, prefix);
  ASSERT_EQ(o.schedules.size(), 1u);
  expect_prefix_kept(o, prefix, "round-robin");
  // After T0's lock, round-robin goes to T1 (its load), then back to T0.
  EXPECT_EQ(o.schedules[0], (std::vector<uint32_t>{1, 1, 1, 0, 1, 0, 0, 0}));
}

// Schedules that begin with `prefix` and have at most `bound` preemptions
// from the first free decision on, by brute force.
uint64_t schedules_within(const Program& p, const std::vector<uint32_t>& fixed, uint32_t bound) {
  uint64_t count = 0;
  std::vector<uint32_t> prefix = fixed;
  std::function<void(uint32_t)> go = [&](uint32_t used) {
    ExecutionPlan plan;
    plan.prefix = prefix;
    Outcome o = simulate(p, plan);
    if (o.events.size() == prefix.size()) {
      ++count;
      return;
    }
    size_t k = prefix.size();
    uint64_t mask = o.events[k].enabled;
    for (uint32_t t = 0; t < 64; ++t) {
      if (!(mask >> t & 1)) continue;
      bool preempt = k > 0 && t != prefix[k - 1] && (mask >> prefix[k - 1] & 1);
      if (used + preempt > bound) continue;
      prefix.push_back(t);
      go(used + preempt);
      prefix.pop_back();
    }
  };
  go(0);
  return count;
}

TEST(FixedPrefix, PreemptionBoundedBranchesOnlyAfterIt) {
  Program p = two_sections();
  // T1 preempts T0 after its section: that preemption is the prefix's, not
  // counted against the bound.
  const std::vector<uint32_t> prefix = {0, 0, 0, 1};
  for (uint32_t bound = 0; bound <= 2; ++bound) {
    PreemptionBoundedStrategy strategy(bound);
    Explored r = explore_from(strategy, p, prefix);
    uint64_t expected = 0;
    for (uint32_t b = 0; b <= bound; ++b) expected += schedules_within(p, prefix, b);
    EXPECT_EQ(r.plans.size(), expected) << "bound " << bound;
    EXPECT_EQ(strategy.completed_bound(), int(bound));
    expect_prefix_kept(r, prefix, "bound " + std::to_string(bound));
  }
}

}  // namespace
