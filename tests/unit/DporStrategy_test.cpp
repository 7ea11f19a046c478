// DporStrategy on simulated programs: a small interpreter plays the agent's
// part (forced prefix, sticky tail, sleepers kept parked until a conflicting
// event, the enabled set logged with each event) so exact class counts and
// outcome coverage can be checked without running processes.
#include "DporStrategy.h"
#include "PreemptionBoundedStrategy.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

using namespace ctrl;

namespace {

struct Op {
  OpKind kind;
  uint64_t addr = 0;
  uint64_t value = 0;  // stored value, or the constant added by a fetch_add
};

struct Program {
  std::vector<std::vector<Op>> threads;
};

struct Outcome {
  std::vector<shm::Event> events;
  bool blocked = false;
  std::vector<uint64_t> reads;  // every value read, in thread order, for coverage
};

// Runs one execution of `p` under `plan`, like the agent would.
Outcome simulate(const Program& p, const ExecutionPlan& plan) {
  const uint32_t n = uint32_t(p.threads.size());
  std::vector<size_t> pc(n, 0);
  std::map<uint64_t, uint64_t> memory;
  std::map<uint64_t, int> owner;  // mutex -> thread
  std::vector<std::vector<uint64_t>> reads(n);
  Outcome out;
  uint64_t sleep = 0;
  uint32_t current = 0;
  auto enabled = [&](uint32_t t) {
    if (pc[t] >= p.threads[t].size()) return false;
    const Op& op = p.threads[t][pc[t]];
    if (op.kind == OpKind::MutexLock) {
      auto it = owner.find(op.addr);
      return it == owner.end() || it->second < 0;
    }
    return true;
  };
  for (uint64_t step = 0;; ++step) {
    uint64_t mask = 0;
    for (uint32_t t = 0; t < n; ++t)
      if (enabled(t)) mask |= uint64_t(1) << t;
    if (!mask) break;
    uint32_t next;
    if (step < plan.prefix.size()) {
      next = plan.prefix[step];
      EXPECT_TRUE(mask >> next & 1) << "the plan chose a thread that cannot run";
      uint64_t from = plan.sleep_from.value_or(plan.prefix.empty() ? 0 : plan.prefix.size() - 1);
      if (step == from) sleep = plan.sleep_mask & ~(uint64_t(1) << next);
    } else {
      uint64_t awake = mask & ~sleep;
      if (!awake) {
        out.blocked = true;
        break;
      }
      next = (awake >> current & 1) ? current : uint32_t(__builtin_ctzll(awake));
    }
    current = next;
    const Op& op = p.threads[next][pc[next]];
    shm::Event e{};
    e.step = uint32_t(step);
    e.thread = uint16_t(next);
    e.kind = uint16_t(op.kind);
    e.addr = op.addr;
    e.size = 8;
    e.enabled = mask;
    switch (op.kind) {
      case OpKind::AtomicLoad:
        e.value_read = memory[op.addr];
        reads[next].push_back(e.value_read);
        break;
      case OpKind::AtomicStore:
        memory[op.addr] = op.value;
        e.value_written = op.value;
        break;
      case OpKind::AtomicRmw:
        e.rmw = uint8_t(RmwOp::Add);
        e.value_read = memory[op.addr];
        e.value_written = e.value_read + op.value;
        memory[op.addr] = e.value_written;
        reads[next].push_back(e.value_read);
        break;
      case OpKind::MutexLock:
        owner[op.addr] = int(next);
        break;
      case OpKind::MutexUnlock:
        owner[op.addr] = -1;
        break;
      default:
        break;
    }
    ++pc[next];
    // Sleepers whose next step depends on this one wake up.
    Access done = access_of(e);
    for (const auto& [t, record] : plan.sleepers)
      if ((sleep >> t & 1) && conflicts(done, from_record(record))) sleep &= ~(uint64_t(1) << t);
    out.events.push_back(e);
  }
  for (auto& r : reads) out.reads.insert(out.reads.end(), r.begin(), r.end());
  return out;
}

struct Result {
  uint64_t complete = 0, blocked = 0;
  std::set<std::vector<uint64_t>> outcomes;
  bool exhaustive = false;
};

Result explore(const Program& p, bool optimal = false, uint64_t limit = 100000) {
  DporStrategy dpor(optimal);
  Result r;
  for (uint64_t i = 0; i < limit; ++i) {
    auto plan = dpor.next();
    if (!plan) break;
    Outcome o = simulate(p, *plan);
    ExecutionSummary s;
    s.index = i;
    s.events = o.events.data();
    s.steps = o.events.size();
    s.blocked = o.blocked;
    s.complete = !o.blocked;
    dpor.completed(s);
    if (o.blocked) {
      ++r.blocked;
    } else {
      ++r.complete;
      r.outcomes.insert(o.reads);
    }
  }
  r.exhaustive = dpor.exhaustive();
  return r;
}

// Every outcome any interleaving can give, by brute force.
std::set<std::vector<uint64_t>> all_outcomes(const Program& p) {
  std::set<std::vector<uint64_t>> seen;
  std::vector<uint32_t> prefix;
  // Depth-first over every choice: replay each prefix and extend by every
  // thread that can run there.
  std::function<void()> go = [&] {
    ExecutionPlan plan;
    plan.prefix = prefix;
    Outcome o = simulate(p, plan);
    if (o.events.size() == prefix.size()) {
      seen.insert(o.reads);
      return;
    }
    uint64_t mask = o.events[prefix.size()].enabled;
    for (uint32_t t = 0; t < 64; ++t) {
      if (!(mask >> t & 1)) continue;
      prefix.push_back(t);
      go();
      prefix.pop_back();
    }
  };
  go();
  return seen;
}

constexpr uint64_t X = 0x1000, Y = 0x2000, M = 0x3000;

TEST(DporStrategy, OneWriterAndNReadersGiveTwoToTheN) {
  for (int readers = 1; readers <= 6; ++readers) {
    Program p;
    p.threads.push_back({{OpKind::AtomicStore, X, 1}});
    for (int i = 0; i < readers; ++i) p.threads.push_back({{OpKind::AtomicLoad, X}});
    Result r = explore(p);
    EXPECT_EQ(r.complete, uint64_t(1) << readers) << readers << " readers";
    EXPECT_EQ(r.blocked, 0u);
    EXPECT_TRUE(r.exhaustive);
  }
}

TEST(DporStrategy, StoreBufferingHasThreeClasses) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  Result r = explore(p);
  EXPECT_EQ(r.complete, 3u);
  EXPECT_TRUE(r.exhaustive);
  EXPECT_EQ(r.outcomes, all_outcomes(p));
  EXPECT_EQ(r.outcomes.count({0, 0}), 0u) << "sequential consistency forbids both reading 0";
}

TEST(DporStrategy, IndependentThreadsNeedOneExecution) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, X}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, Y}});
  p.threads.push_back({{OpKind::AtomicLoad, M + 64}});
  Result r = explore(p);
  EXPECT_EQ(r.complete, 1u);
  EXPECT_TRUE(r.exhaustive);
}

TEST(DporStrategy, LockedCriticalSectionsInEveryOrder) {
  // Three threads each lock, increment, unlock: 3! orders of the sections.
  Program p;
  for (int t = 0; t < 3; ++t)
    p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  Result r = explore(p);
  EXPECT_EQ(r.complete, 6u);
  EXPECT_EQ(r.blocked, 0u);
  EXPECT_TRUE(r.exhaustive);
}

TEST(DporStrategy, LockedWriterReaderAndEmptySection) {
  // A critical section writing x, a reader of x, an empty critical section:
  // (section order) x (read before or after the write) = 4 classes.
  Program p;
  p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicStore, X, 1}, {OpKind::MutexUnlock, M}});
  p.threads.push_back({{OpKind::AtomicLoad, X}});
  p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::MutexUnlock, M}});
  for (bool optimal : {false, true}) {
    Result r = explore(p, optimal);
    EXPECT_EQ(r.complete, 4u) << (optimal ? "optimal" : "source");
    EXPECT_TRUE(r.exhaustive);
  }
}

TEST(DporStrategy, ReachesEveryOutcomeOfMixedPrograms) {
  // A few hand-made mixes of locks, loads, stores and read-modify-writes:
  // every outcome a brute-force search reaches, DPOR reaches too.
  std::vector<Program> programs(3);
  programs[0].threads = {{{OpKind::AtomicLoad, X}, {OpKind::AtomicStore, Y, 1}},
                         {{OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, X, 1}},
                         {{OpKind::AtomicRmw, X, 2}, {OpKind::AtomicLoad, Y}}};
  programs[1].threads = {{{OpKind::MutexLock, M}, {OpKind::AtomicLoad, X}, {OpKind::MutexUnlock, M}, {OpKind::AtomicStore, X, 5}},
                         {{OpKind::AtomicStore, X, 3}, {OpKind::MutexLock, M}, {OpKind::AtomicLoad, X}, {OpKind::MutexUnlock, M}}};
  programs[2].threads = {{{OpKind::AtomicRmw, X, 1}, {OpKind::AtomicRmw, Y, 1}},
                         {{OpKind::AtomicRmw, Y, 1}, {OpKind::AtomicRmw, X, 1}},
                         {{OpKind::AtomicLoad, X}, {OpKind::AtomicLoad, Y}}};
  for (size_t i = 0; i < programs.size(); ++i) {
    Result r = explore(programs[i]);
    EXPECT_TRUE(r.exhaustive) << "program " << i;
    EXPECT_EQ(r.outcomes, all_outcomes(programs[i])) << "program " << i;
  }
}

// Optimal-DPOR: the same classes, never a blocked execution.
TEST(OptimalDpor, SameCountsAndNoBlockedExecutions) {
  std::vector<Program> programs;
  for (int readers = 1; readers <= 5; ++readers) {
    Program p;
    p.threads.push_back({{OpKind::AtomicStore, X, 1}});
    for (int i = 0; i < readers; ++i) p.threads.push_back({{OpKind::AtomicLoad, X}});
    programs.push_back(p);
  }
  Program sb;
  sb.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  sb.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  programs.push_back(sb);
  Program locks;
  for (int t = 0; t < 3; ++t)
    locks.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  programs.push_back(locks);
  Program mix;
  mix.threads = {{{OpKind::AtomicLoad, X}, {OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, Y}},
                 {{OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, X, 1}},
                 {{OpKind::AtomicRmw, X, 2}, {OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, Y, 3}}};
  programs.push_back(mix);
  for (size_t i = 0; i < programs.size(); ++i) {
    Result source = explore(programs[i]);
    Result optimal = explore(programs[i], true);
    EXPECT_EQ(optimal.complete, source.complete) << "program " << i;
    EXPECT_EQ(optimal.blocked, 0u) << "program " << i;
    EXPECT_TRUE(optimal.exhaustive) << "program " << i;
    EXPECT_EQ(optimal.outcomes, all_outcomes(programs[i])) << "program " << i;
  }
}

// Schedules with at most `bound` preemptions, by brute force.
uint64_t schedules_within(const Program& p, uint32_t bound) {
  uint64_t count = 0;
  std::vector<uint32_t> prefix;
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

TEST(PreemptionBounded, RunsEverySchedulePerBoundOnce) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  for (uint32_t bound = 0; bound <= 3; ++bound) {
    PreemptionBoundedStrategy strategy(bound);
    uint64_t runs = 0;
    while (auto plan = strategy.next()) {
      Outcome o = simulate(p, *plan);
      ExecutionSummary s;
      s.events = o.events.data();
      s.steps = o.events.size();
      s.complete = true;
      strategy.completed(s);
      ++runs;
    }
    uint64_t expected = 0;
    for (uint32_t b = 0; b <= bound; ++b) expected += schedules_within(p, b);
    EXPECT_EQ(runs, expected) << "bound " << bound;
    EXPECT_EQ(strategy.completed_bound(), int(bound));
  }
}

}  // namespace
