// --strategy sat's event graph as a DAG (analyses/SatEventGraph.h): two
// histories of a thread whose plain reads reach one site and location in
// the same state fingerprint (the agent's value_written on a read when the
// plan asks for read_states) are one node, so a value read there is one goal
// for both, not one per history.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "Operation.h"
#include "SatEncoder.h"
#include "SatEventGraph.h"

namespace ctrl {
namespace {

constexpr uint64_t kX = 0x3000, kY = 0x4000, kFlag = 0x5000, kW = 0x5800;
constexpr uint64_t kState = 0x77;  // T0's state at its read of kFlag, whatever it read of kX

shm::Event op(uint32_t thread, OpKind kind, uint64_t addr, uint64_t site, uint64_t read, uint64_t written) {
  shm::Event e{};
  e.thread = uint16_t(thread);
  e.kind = uint16_t(kind);
  e.addr = addr;
  e.site = site;
  e.size = 4;
  e.value_read = read;
  e.value_written = written;
  return e;
}

// T1: x = 1; flag = 5. T0: if (x) y = 1; w = 1; read flag (in state kState
// on both paths, right after a store on both: SatMerge.NotAfterAReadOnlyRun).
// `x`, `flag`: what T0 reads; `t1_first`: T1's stores before T0's reads of
// them.
std::vector<shm::Event> execution(uint64_t x, uint64_t flag, uint64_t state = kState) {
  std::vector<shm::Event> ev;
  auto t1x = op(1, OpKind::AtomicStore, kX, 0x500100, 0, 1);
  auto t1f = op(1, OpKind::AtomicStore, kFlag, 0x500200, 0, 5);
  if (x) ev.push_back(t1x);
  ev.push_back(op(0, OpKind::AtomicLoad, kX, 0x400100, x, 0));
  if (x) ev.push_back(op(0, OpKind::AtomicStore, kY, 0x400200, 0, 1));
  ev.push_back(op(0, OpKind::AtomicStore, kW, 0x400250, 0, 1));
  if (flag) ev.push_back(t1f);
  ev.push_back(op(0, OpKind::AtomicLoad, kFlag, 0x400300, flag, state));
  if (!x) ev.push_back(t1x);
  if (!flag) ev.push_back(t1f);
  for (uint32_t k = 0; k < ev.size(); ++k) ev[k].step = k;
  return ev;
}

uint32_t flag_reads(const SatEventGraph& g) {
  uint32_t n = 0;
  for (const auto& node : g.nodes())
    if (node.known && node.role == SatRole::Read && node.op.addr == kFlag) ++n;
  return n;
}

TEST(SatMerge, HistoriesReachingOneStateAreOneNode) {
  SatEventGraph g;
  for (auto ev : {execution(0, 0), execution(1, 0)}) ASSERT_TRUE(g.merge(ev.data(), ev.size())) << g.why();
  EXPECT_EQ(g.merges(), 1u);
  ASSERT_EQ(flag_reads(g), 1u);
  for (uint32_t n = 0; n < g.nodes().size(); ++n)
    if (g.nodes()[n].known && g.nodes()[n].role == SatRole::Read && g.nodes()[n].op.addr == kFlag) {
      EXPECT_EQ(g.nodes()[n].parents.size(), 2u);
      // Both of T0's histories reach it: the read of x is before it.
      for (uint32_t m = 0; m < g.nodes().size(); ++m) {
        bool x_read = g.nodes()[m].known && g.nodes()[m].op.addr == kX && g.nodes()[m].role == SatRole::Read;
        EXPECT_TRUE(!x_read || g.before_in_thread(m, n));
      }
    }
}

TEST(SatMerge, ADifferentStateStaysAnotherHistory) {
  SatEventGraph g;
  for (auto ev : {execution(0, 0), execution(1, 0, kState + 2)}) ASSERT_TRUE(g.merge(ev.data(), ev.size()));
  EXPECT_EQ(g.merges(), 0u);
  EXPECT_EQ(flag_reads(g), 2u);
}

// The read of flag 5 was seen on one path: merged, it is seen for both, and
// the search is behaviour-complete after three executions; as a trie (no
// state logged) x 0 then flag 5 is still a goal.
TEST(SatMerge, AValueSeenOnOnePathIsCoveredForTheMergedOne) {
  for (bool states : {true, false}) {
    SatEventGraph g;
    for (auto ev : {execution(0, 0, states ? kState : 0), execution(1, 0, states ? kState : 0),
                    execution(1, 5, states ? kState : 0)})
      ASSERT_TRUE(g.merge(ev.data(), ev.size())) << g.why();
    auto solver = make_cadical_solver();
    SatEncoder encoder(g, *solver);
    SatAnswer answer = encoder.solve({});
    if (states) {
      EXPECT_EQ(answer.result, SatSolver::Result::Unsat);
    } else {
      ASSERT_EQ(answer.result, SatSolver::Result::Sat);
      EXPECT_EQ(g.nodes()[answer.order.back().node].op.addr, kFlag);
    }
  }
}

// A merged graph still answers as the executions allow: from the first two
// executions, the goal (flag 5) is reached by a model that runs T0 along one
// path into the shared node, with T1's flag store before it.
TEST(SatMerge, TheGoalAtAMergedNodeHasAConsistentOrder) {
  SatEventGraph g;
  for (auto ev : {execution(0, 0), execution(1, 0)}) ASSERT_TRUE(g.merge(ev.data(), ev.size()));
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer answer = encoder.solve({});
  ASSERT_EQ(answer.result, SatSolver::Result::Sat);
  const auto& nodes = g.nodes();
  ASSERT_TRUE(answer.order.back().goal);
  EXPECT_EQ(nodes[answer.order.back().node].op.addr, kFlag);
  bool flag_stored = false, x_read = false;
  for (const auto& s : answer.order) {
    if (nodes[s.node].op.thread == 1 && nodes[s.node].op.addr == kFlag) flag_stored = true;
    if (nodes[s.node].op.thread == 0 && nodes[s.node].op.addr == kX) x_read = true;
  }
  EXPECT_TRUE(flag_stored);
  EXPECT_TRUE(x_read);
}

// A read in the state of an earlier read of its own history (a loop that
// wrote something and came back) is not merged into it: that would be a
// cycle.
TEST(SatMerge, NeverIntoItsOwnAncestor) {
  std::vector<shm::Event> ev{op(0, OpKind::AtomicLoad, kX, 0x400100, 0, kState),
                             op(0, OpKind::AtomicStore, kY, 0x400200, 0, 1),
                             op(0, OpKind::AtomicLoad, kX, 0x400100, 0, kState)};
  for (uint32_t k = 0; k < ev.size(); ++k) ev[k].step = k;
  SatEventGraph g;
  ASSERT_TRUE(g.merge(ev.data(), ev.size())) << g.why();
  EXPECT_EQ(g.merges(), 0u);
}

// Dijkstra's seq_cst lock (sat_verdicts.mutex_dijkstra_seq_cst): T0 reads
// a, exchanges x, reads n, and reads a again in a's state. When the
// exchange changed x (a reads 0) the second read of a is a new node; when
// it left x as it was (a reads 1) it is a spin back to the first. Merged at
// n after the unchanged exchange, the second history's spin would lead
// back above the merge, into a node the first history had gone on from
// ("the same history did something else"): a read is merged only right
// after its thread changed memory.
TEST(SatMerge, NotAfterAReadOnlyRun) {
  constexpr uint64_t kA = 0x6000, kN = 0x7000, kS1 = 0x11, kS2 = 0x23;
  auto execution = [&](uint64_t a) {
    std::vector<shm::Event> ev{op(0, OpKind::Load, kA, 0x400100, a, kS1), op(0, OpKind::Rmw, kX, 0x400200, a, 1),
                               op(0, OpKind::Load, kN, 0x400300, 2, kS2), op(0, OpKind::Load, kA, 0x400100, a, kS1),
                               op(0, OpKind::AtomicStore, kY, 0x400400, 0, 1)};
    // The spin: the thread is back at its first read (the execution ends
    // there).
    if (a == 1) ev[3].flags = shm::kSameState, ev.pop_back();
    // T1 stored both first (the initial values stay 0).
    if (a == 1)
      ev.insert(ev.begin(),
                {op(1, OpKind::AtomicStore, kA, 0x500100, 0, 1), op(1, OpKind::AtomicStore, kX, 0x500200, 0, 1)});
    for (uint32_t k = 0; k < ev.size(); ++k) ev[k].step = k;
    return ev;
  };
  SatEventGraph g;
  for (auto ev : {execution(0), execution(1)}) ASSERT_TRUE(g.merge(ev.data(), ev.size())) << g.why();
  EXPECT_EQ(g.merges(), 0u);
}

// A spinner's window across a merged node (sat_verdicts.mutex_dijkstra_relaxed
// with CTRL_SAT_MERGE=1: the agent held back a read the model ran). T1 stores
// y = 1. T0 reads w (1), y, a (in state kS1), stores w = 1 again (no change),
// reads flag (merged: right after a store on both histories of y) and is
// held back at a second read of a in state kS1: nothing it read since the
// first was written. On both histories running it is a spin, so the search
// is complete; without the window encoded on each history a model ran it.
TEST(SatMerge, ASpinWindowAcrossAMergeHoldsOnEveryHistory) {
  constexpr uint64_t kA = 0x6000, kS1 = 0x11, kS2 = 0x23;
  auto execution = [&](uint64_t y) {
    std::vector<shm::Event> ev;
    auto t1 = op(1, OpKind::AtomicStore, kY, 0x500100, 0, 1);
    if (y) ev.push_back(t1);
    ev.push_back(op(0, OpKind::Load, kW, 0x400050, 1, kS2 + 2));
    ev.push_back(op(0, OpKind::Load, kY, 0x400100, y, kS2 + 4));
    ev.push_back(op(0, OpKind::Load, kA, 0x400200, 0, kS1));
    ev.push_back(op(0, OpKind::Store, kW, 0x400300 + 0x10 * y, 1, 1));
    ev.push_back(op(0, OpKind::Load, kFlag, 0x400400, 0, kS2));
    if (!y) ev.push_back(t1);
    for (uint32_t k = 0; k < ev.size(); ++k) ev[k].step = k;
    return ev;
  };
  shm::Event parked = op(0, OpKind::Load, kA, 0x400200, 0, kS1);
  parked.enabled = 0;
  SatEventGraph g;
  for (auto ev : {execution(0), execution(1)}) ASSERT_TRUE(g.merge(ev.data(), ev.size(), &parked, 1)) << g.why();
  ASSERT_EQ(g.merges(), 1u);
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer answer = encoder.solve({});
  EXPECT_EQ(answer.result, SatSolver::Result::Unsat);
}

// Dekker's back-off (bench/sat_dekker.c): a history that runs through an
// older branch of its thread (made by an earlier execution that stopped
// there) still merges into the state another history reached, and a read
// below the merged node then has the branch's store before it, with that
// store's clauses. T0: read x; if (x) z = 1; w = 1; read flag (kState);
// read z; if (z) read x again. T1: x = 1. Executions: x 0 (z read 0); x 1
// stopping after z = 1; x 1 to the end (merged at the flag read; z read 1,
// x read 1 again). A round after each. The second read of x can only read
// 1 (z is 1 only when x was), so the last round is unsat; with the z
// read's clauses made while z = 1 was on another history and not again,
// its source z = 1 was unconstrained and a model read z 1 on the x 0
// history, and x 0 again.
TEST(SatMerge, AHistoryThroughAnOlderBranchMergesAndItsStoresAreSources) {
  constexpr uint64_t kZ = 0x6800;
  auto execution = [&](uint64_t x, size_t t0_ops) {
    std::vector<shm::Event> t0{op(0, OpKind::AtomicLoad, kX, 0x400100, x, 0)};
    if (x) t0.push_back(op(0, OpKind::AtomicStore, kZ, 0x400150, 0, 1));
    t0.push_back(op(0, OpKind::AtomicStore, kW, 0x400250, 0, 1));
    t0.push_back(op(0, OpKind::AtomicLoad, kFlag, 0x400300, 0, kState));
    t0.push_back(op(0, OpKind::AtomicLoad, kZ, 0x400400, x, 0));
    if (x) t0.push_back(op(0, OpKind::AtomicLoad, kX, 0x400500, 1, 0));
    t0.resize(std::min(t0.size(), t0_ops));
    std::vector<shm::Event> ev;
    auto t1 = op(1, OpKind::AtomicStore, kX, 0x500100, 0, 1);
    if (x) ev.push_back(t1);
    ev.insert(ev.end(), t0.begin(), t0.end());
    if (!x) ev.push_back(t1);
    for (uint32_t k = 0; k < ev.size(); ++k) ev[k].step = k;
    return ev;
  };
  SatEventGraph g;
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer answer;
  for (auto ev : {execution(0, 9), execution(1, 2), execution(1, 9)}) {
    ASSERT_TRUE(g.merge(ev.data(), ev.size())) << g.why();
    answer = encoder.solve({});
  }
  EXPECT_EQ(g.merges(), 1u);
  EXPECT_EQ(flag_reads(g), 1u);
  EXPECT_EQ(answer.result, SatSolver::Result::Unsat);
}

// Under tso (SatEventGraph(true)) histories merge only right after a store
// that drained the buffer: the fingerprint does not cover what the buffer
// holds. T0's w = 1 before the flag read is unbuffered (it drains) in the
// first case and buffered in the second (y = 1 of the x 1 history could
// still be in the buffer there).
TEST(SatMerge, UnderTsoOnlyRightAfterADrain) {
  for (bool buffered : {false, true}) {
    SatEventGraph g(true);
    for (auto ev : {execution(0, 0), execution(1, 0)}) {
      for (auto& e : ev)
        if (e.thread == 0 && OpKind(e.kind) == OpKind::AtomicStore && (buffered || e.addr == kY))
          e.flags |= shm::kBuffered;
      ASSERT_TRUE(g.merge(ev.data(), ev.size())) << g.why();
    }
    EXPECT_EQ(g.merges(), buffered ? 0u : 1u) << (buffered ? "after a buffered store" : "after a drain");
    EXPECT_EQ(flag_reads(g), buffered ? 2u : 1u);
  }
}

}  // namespace
}  // namespace ctrl
