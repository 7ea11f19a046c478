// --strategy sat (analyses/SatStrategy.h) on simulated programs, and its
// encoder (analyses/SatEncoder.h) on small merged graphs whose answers are
// known.
#include "SatStrategy.h"

#include <gtest/gtest.h>

#include <set>

#include "SatEncoder.h"
#include "SimulatedProgram.h"

namespace ctrl {
namespace {

constexpr uint64_t kData = 0x1000, kFlag = 0x2000, kX = 0x3000, kY = 0x4000;

// Message passing: T0 data = 1; flag = 1. T1 reads flag, then data. Under
// SC, T1 never reads flag 1 and then data 0.
sim::Program message_passing() {
  sim::Program p;
  p.threads = {{{OpKind::AtomicStore, kData, 1}, {OpKind::AtomicStore, kFlag, 1}},
               {{OpKind::AtomicLoad, kFlag}, {OpKind::AtomicLoad, kData}}};
  return p;
}

// The values T1 read, as (flag, data).
std::pair<uint64_t, uint64_t> t1_reads(const sim::Outcome& o) {
  std::vector<uint64_t> v;
  for (const auto& e : o.events)
    if (e.thread == 1) v.push_back(e.value_read);
  return {v.at(0), v.at(1)};
}

sim::Outcome run(const sim::Program& p, const ExecutionPlan& plan) { return sim::simulate(p, plan); }

TEST(SatEncoder, MessagePassingGoalNeedsTheDataStoreFirst) {
  // Seen: T0 then T1 (flag 1, data 1), and T1 then T0 (flag 0, data 0).
  auto p = message_passing();
  SatEventGraph g;
  ExecutionPlan first;
  first.prefix = {0, 0, 1, 1};
  auto a = run(p, first);
  ExecutionPlan second;
  second.prefix = {1, 1, 0, 0};
  auto b = run(p, second);
  ASSERT_TRUE(g.merge(a.events.data(), a.events.size())) << g.why();
  ASSERT_TRUE(g.merge(b.events.data(), b.events.size())) << g.why();
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer answer = encoder.solve({});
  // The only new value SC allows: flag 0, then data 1 (the data store
  // between T1's two loads). Flag 1 and data 0 would need a cycle.
  ASSERT_EQ(answer.result, SatSolver::Result::Sat);
  ASSERT_FALSE(answer.order.empty());
  const SatStep& goal = answer.order.back();
  EXPECT_TRUE(goal.goal);
  const auto& nodes = g.nodes();
  EXPECT_EQ(nodes[goal.node].op.addr, kData);
  EXPECT_EQ(nodes[goal.node].op.thread, 1);
  // Before it: T1's flag load read 0, and T0's data store ran.
  bool flag_zero = false, data_stored = false;
  for (const auto& s : answer.order) {
    const auto& op = nodes[s.node].op;
    if (op.thread == 1 && op.addr == kFlag) flag_zero = s.key == 0;
    if (op.thread == 0 && op.addr == kData) data_stored = true;
    if (op.thread == 0 && op.addr == kFlag) ADD_FAILURE() << "the flag store cannot come before the goal";
  }
  EXPECT_TRUE(flag_zero);
  EXPECT_TRUE(data_stored);
}

TEST(SatEncoder, UnsatOnceEverySequentiallyConsistentValueWasRead) {
  auto p = message_passing();
  SatEventGraph g;
  for (std::vector<uint32_t> prefix : {std::vector<uint32_t>{0, 0, 1, 1}, {1, 1, 0, 0}, {0, 1, 1, 0}}) {
    ExecutionPlan plan;
    plan.prefix = prefix;
    auto o = run(p, plan);
    ASSERT_TRUE(g.merge(o.events.data(), o.events.size())) << g.why();
  }
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer answer = encoder.solve({});
  // Flag 1 then data 0 is left, and it is not sequentially consistent: the
  // solver's first orders are cyclic, forbidden one by one, then unsat.
  EXPECT_EQ(answer.result, SatSolver::Result::Unsat);
  EXPECT_GT(answer.goals, 0u);
}

// One encoder and solver for the whole search: a round adds only what the
// graph gained since the last (nothing here) and its own part (the goal
// clause, the open ends of growing disjunctions, the last round retired),
// and the answer is the same.
TEST(SatEncoder, ASecondRoundOnTheSameGraphAddsOnlyItsOwnPart) {
  auto p = message_passing();
  SatEventGraph g;
  for (std::vector<uint32_t> prefix : {std::vector<uint32_t>{0, 0, 1, 1}, {1, 1, 0, 0}}) {
    ExecutionPlan plan;
    plan.prefix = prefix;
    auto o = run(p, plan);
    ASSERT_TRUE(g.merge(o.events.data(), o.events.size())) << g.why();
  }
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer first = encoder.solve({});
  ASSERT_EQ(first.result, SatSolver::Result::Sat);
  SatAnswer second = encoder.solve({});
  ASSERT_EQ(second.result, SatSolver::Result::Sat);
  EXPECT_EQ(second.clauses - first.clauses, second.added);
  // The retired activation, the goal clause, and one per open end (each of
  // T1's three read nodes: its writers); the whole formula was far more.
  EXPECT_EQ(second.added, 2u + 3u);
  EXPECT_GT(first.added, 5 * second.added);
  EXPECT_EQ(g.nodes()[second.order.back().node].op.addr, kData);
}

// Event identity through a spin loop: a compare-exchange that failed, then
// its retry in the same state (kSameState) that succeeded, is the same
// history as one that succeeded at once; the failed value is a spin key.
TEST(SatEventGraph, RetryInTheSameStateIsTheSameNode) {
  auto cas = [](uint32_t step, uint64_t read, bool failed, bool same) {
    shm::Event e{};
    e.step = step;
    e.thread = 0;
    e.kind = uint16_t(OpKind::AtomicCas);
    e.addr = kX;
    e.site = 0x400100;
    e.size = 8;
    e.value_read = read;
    e.value_written = 1;
    e.flags = uint8_t((failed ? shm::kFailed : 0) | (same ? shm::kSameState : 0));
    return e;
  };
  shm::Event store{};
  store.thread = 0;
  store.kind = uint16_t(OpKind::AtomicStore);
  store.addr = kY;
  store.site = 0x400200;
  store.size = 8;
  store.value_written = 5;
  std::vector<shm::Event> at_once = {cas(0, 0, false, false), store};
  auto other = [](uint64_t v) {
    shm::Event e{};
    e.thread = 1;
    e.kind = uint16_t(OpKind::AtomicStore);
    e.addr = kX;
    e.site = 0x400300;
    e.size = 8;
    e.value_written = v;
    return e;
  };
  // Thread 1 holds the word (1) while thread 0 retries, then frees it.
  std::vector<shm::Event> retried = {other(1), cas(0, 1, true, false), cas(1, 1, true, true),
                                     other(0), cas(2, 0, false, true), store};
  SatEventGraph g;
  ASSERT_TRUE(g.merge(at_once.data(), at_once.size())) << g.why();
  ASSERT_TRUE(g.merge(retried.data(), retried.size())) << g.why();
  size_t known = 0;
  for (const auto& n : g.nodes()) known += n.known;
  EXPECT_EQ(known, 4u);  // thread 0's compare-exchange and store (one history), thread 1's two stores
  const SatNode& root = g.nodes()[g.instances()[0].root];
  EXPECT_EQ(root.edges.size(), 1u);
  EXPECT_TRUE(root.spins_on(1));
  EXPECT_EQ(root.spin_to, g.instances()[0].root);
}

// Runs the strategy on a simulated program to its end.
std::vector<sim::Outcome> explore(SatStrategy& s, const sim::Program& p, uint64_t limit = 100) {
  std::vector<sim::Outcome> runs;
  while (runs.size() < limit) {
    auto plan = s.next();
    if (!plan) break;
    runs.push_back(run(p, *plan));
    s.completed(sim::summary_of(runs.back(), runs.size() - 1));
  }
  return runs;
}

// The agent's spin rule across a store of the value memory held (the
// relaxed Burns loop: "flag[me] = 0; if (flag[other]) goto again"): such a
// store is no progress, so the thread's re-read of kX in the same state
// waits for a write to kX. T0: load kY; load kX; if it read 1: store kY = 0
// (kY held 0: unchanged), load kX again. T1: store kX = 1, store kX = 0.
// The re-read can only follow T1's second store: it never reads 1, and once
// both executions below ran nothing is new (a model with the re-read right
// after the store would be a schedule the agent refuses to follow).
TEST(SatEncoder, StoreOfTheHeldValueKeepsTheSpinWindow) {
  auto ev = [](uint32_t thread, OpKind kind, uint64_t addr, uint64_t site, uint64_t read, uint64_t written,
               uint8_t flags = 0) {
    shm::Event e{};
    e.thread = thread;
    e.kind = uint16_t(kind);
    e.addr = addr;
    e.site = site;
    e.size = 8;
    e.value_read = read;
    e.value_written = written;
    e.flags = flags;
    return e;
  };
  auto load_y = ev(0, OpKind::AtomicLoad, kY, 0x400100, 0, 0);
  auto load_x = [&](uint64_t v, uint8_t flags = 0) { return ev(0, OpKind::AtomicLoad, kX, 0x400200, v, 0, flags); };
  auto store_y = ev(0, OpKind::AtomicStore, kY, 0x400300, 0, 0, shm::kUnchanged);
  auto store_x = [&](uint64_t v, uint64_t site) { return ev(1, OpKind::AtomicStore, kX, site, 0, v); };
  std::vector<shm::Event> first = {load_y, load_x(0), store_x(1, 0x400400), store_x(0, 0x400500)};
  std::vector<shm::Event> second = {store_x(1, 0x400400),      load_y, load_x(1), store_y, store_x(0, 0x400500),
                                    load_x(0, shm::kSameState)};
  SatEventGraph g;
  ASSERT_TRUE(g.merge(first.data(), first.size())) << g.why();
  ASSERT_TRUE(g.merge(second.data(), second.size())) << g.why();
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer answer = encoder.solve({});
  EXPECT_GT(answer.goals, 0u);
  EXPECT_EQ(answer.result, SatSolver::Result::Unsat);
}

TEST(SatStrategy, MessagePassingEveryScOutcomeOnceAndComplete) {
  SatStrategy s;
  auto p = message_passing();
  auto runs = explore(s, p);
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (const auto& o : runs) seen.insert(t1_reads(o));
  EXPECT_EQ(seen, (std::set<std::pair<uint64_t, uint64_t>>{{0, 0}, {0, 1}, {1, 1}}));
  EXPECT_EQ(runs.size(), 3u);  // each execution reads something new
  EXPECT_TRUE(s.exhaustive());
  // Known goals: each load, each value its location's writers or initial
  // value give (2 + 2 + 2 after flag 0 and after flag 1); covered: all but
  // data 0 after flag 1, which SC forbids.
  EXPECT_EQ(s.solver_stats()->goals_covered, 5u);
  EXPECT_EQ(s.solver_stats()->goals_known, 6u);
  EXPECT_EQ(s.solver_stats()->deviations, 0u);
}

// Three stores to one location and a thread that reads it twice: a read
// of the middle value needs its read between that store and the next, which
// only the lazy "no writer in between" clauses say (SatEncoder.h). Without
// them a model reads 1 after x = 2 ran, the run reads 2: a deviation.
TEST(SatStrategy, AnOverwrittenValueIsReadBeforeTheNextStoreOnly) {
  sim::Program p;
  p.threads = {{{OpKind::AtomicStore, kX, 1}, {OpKind::AtomicStore, kX, 2}, {OpKind::AtomicStore, kX, 3}},
               {{OpKind::AtomicLoad, kX}, {OpKind::AtomicLoad, kX}}};
  SatStrategy s;
  auto runs = explore(s, p);
  std::set<std::vector<uint64_t>> seen;
  for (const auto& o : runs) seen.insert(o.reads);
  std::set<std::vector<uint64_t>> sc;
  for (uint64_t a = 0; a <= 3; ++a)
    for (uint64_t b = a; b <= 3; ++b) sc.insert({a, b});
  EXPECT_EQ(seen, sc);
  EXPECT_TRUE(s.exhaustive());
  EXPECT_EQ(s.solver_stats()->deviations, 0u);
  uint64_t between = 0;
  for (const auto& r : s.solver_stats()->rounds) between += r.between;
  EXPECT_GT(between, 0u);  // the clauses were made lazily, from models that broke them
}

TEST(SatStrategy, StoreBufferingNeverBothZeroUnderSc) {
  // T0: x = 1; read y. T1: y = 1; read x.
  sim::Program p;
  p.threads = {{{OpKind::AtomicStore, kX, 1}, {OpKind::AtomicLoad, kY}},
               {{OpKind::AtomicStore, kY, 1}, {OpKind::AtomicLoad, kX}}};
  SatStrategy s;
  auto runs = explore(s, p);
  for (const auto& o : runs) EXPECT_NE(o.reads, (std::vector<uint64_t>{0, 0}));
  EXPECT_TRUE(s.exhaustive());
  EXPECT_LE(runs.size(), 3u);
}

TEST(SatStrategy, LockedCounterTwoIncrementsCompleteWithoutRerunningOrders) {
  // Two threads increment a counter under a mutex: every thread history is
  // the same whatever the order, bar the value each reads (0 or 1).
  constexpr uint64_t kLock = 0x5000, kCount = 0x6000;
  sim::Program p;
  std::vector<sim::Op> body = {
      {OpKind::MutexLock, kLock}, sim::Op{OpKind::AtomicRmw, kCount, 1, RmwOp::Add}, {OpKind::MutexUnlock, kLock}};
  p.threads = {body, body};
  SatStrategy s;
  auto runs = explore(s, p);
  std::set<std::vector<uint64_t>> seen;
  for (const auto& o : runs) seen.insert(o.reads);
  EXPECT_EQ(seen, (std::set<std::vector<uint64_t>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(runs.size(), 2u);
  EXPECT_TRUE(s.exhaustive());
}

}  // namespace
}  // namespace ctrl
