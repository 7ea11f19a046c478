// --strategy sat under --model tso (analyses/SatTsoEncoding.h): the graph's
// flush nodes, and a goal that x86-TSO reaches and sequential consistency
// does not, on hand-made traces.
#include "SatTsoEncoding.h"

#include <gtest/gtest.h>

#include <vector>

#include "SatEncoder.h"

namespace ctrl {
namespace {

constexpr uint64_t kX = 0x1000, kY = 0x2000, kA = 0x3000;

// Store buffering with a witness: T0 stores x, loads y and, having read 0,
// stores a; T1 stores y, loads x, loads a. T1 reading a == 1 after x == 0
// needs both loads to pass their thread's store: TSO only.
struct Trace {
  bool tso;
  std::vector<shm::Event> events;
  void op(uint16_t thread, OpKind kind, uint64_t addr, uint64_t read = 0, uint64_t written = 0) {
    shm::Event e{};
    e.step = uint32_t(events.size());
    e.thread = thread;
    e.kind = uint16_t(kind);
    e.addr = addr;
    e.site = addr + thread * 0x100 + uint64_t(kind);
    e.value_read = read;
    e.value_written = written;
    e.size = 8;
    e.order = uint8_t(MemOrder::NotAtomic);
    if (tso && kind == OpKind::Store) e.flags = shm::kBuffered;
    events.push_back(e);
    if (tso && kind == OpKind::Store) {
      // Flushed at once.
      shm::Event f{};
      f.step = uint32_t(events.size());
      f.thread = uint16_t(shm::kFlushActorBase + thread);
      f.kind = uint16_t(OpKind::Flush);
      f.addr = addr;
      f.aux = e.step;
      f.size = 8;
      f.owner = uint8_t(thread);
      events.push_back(f);
    }
  }
};

// T0 runs first, then T1 (T1 reads x == 1, a == 1); or the other way round
// (T1 reads x == 0, a == 0; T0 reads y == 1 and stores nothing more); or
// both stores first (x == 1, a == 0).
std::vector<Trace> three_orders(bool tso) {
  Trace a{tso, {}}, b{tso, {}}, c{tso, {}};
  a.op(0, OpKind::Store, kX, 0, 1);
  a.op(0, OpKind::Load, kY, 0);
  a.op(0, OpKind::Store, kA, 0, 1);
  a.op(1, OpKind::Store, kY, 0, 1);
  a.op(1, OpKind::Load, kX, 1);
  a.op(1, OpKind::Load, kA, 1);
  b.op(1, OpKind::Store, kY, 0, 1);
  b.op(1, OpKind::Load, kX, 0);
  b.op(1, OpKind::Load, kA, 0);
  b.op(0, OpKind::Store, kX, 0, 1);
  b.op(0, OpKind::Load, kY, 1);
  c.op(0, OpKind::Store, kX, 0, 1);
  c.op(1, OpKind::Store, kY, 0, 1);
  c.op(0, OpKind::Load, kY, 1);
  c.op(1, OpKind::Load, kX, 1);
  c.op(1, OpKind::Load, kA, 0);
  return {a, b, c};
}

SatAnswer first_round(SatEventGraph& g, bool tso) {
  for (const Trace& t : three_orders(tso)) EXPECT_TRUE(g.merge(t.events.data(), t.events.size())) << g.why();
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  return encoder.solve({});
}

TEST(SatTsoEncoding, BufferedStoresHaveFlushNodesInStoreOrder) {
  SatEventGraph g(true);
  Trace a = three_orders(true)[0];
  ASSERT_TRUE(g.merge(a.events.data(), a.events.size())) << g.why();
  std::vector<uint32_t> stores;
  for (uint32_t n = 0; n < g.nodes().size(); ++n)
    if (g.nodes()[n].role == SatRole::Write && g.nodes()[n].op.thread == 0) stores.push_back(n);
  ASSERT_EQ(stores.size(), 2u);
  const SatNode& x = g.nodes()[stores[0]];
  const SatNode& a_store = g.nodes()[stores[1]];
  ASSERT_TRUE(x.buffered && a_store.buffered);
  ASSERT_NE(x.flush, kSatNone);
  // FIFO: the second store's flush follows the first's in the flush trie.
  EXPECT_EQ(g.nodes()[a_store.flush].parent, x.flush);
  EXPECT_EQ(g.nodes()[x.flush].store, stores[0]);
  EXPECT_EQ(g.nodes()[x.flush].role, SatRole::Flush);
  EXPECT_EQ(g.instances()[g.nodes()[x.flush].instance].owner, x.instance);
}

TEST(SatTsoEncoding, StoreBufferingWitnessIsReachableUnderTsoOnly) {
  SatEventGraph sc;
  SatAnswer no = first_round(sc, false);
  // Every read saw every value SC lets it read: only TSO lets T1 read a == 1
  // after x == 0.
  EXPECT_EQ(no.result, SatSolver::Result::Unsat);

  SatEventGraph tso(true);
  SatAnswer yes = first_round(tso, true);
  ASSERT_EQ(yes.result, SatSolver::Result::Sat);
  const SatStep& goal = yes.order.back();
  ASSERT_TRUE(goal.goal);
  const auto& nodes = tso.nodes();
  EXPECT_EQ(nodes[goal.node].op.addr, kA);
  EXPECT_EQ(nodes[goal.node].op.thread, 1);
  // The order: T1's load of x before x's flush, and a's flush (after x's:
  // FIFO) before the goal.
  size_t load_x = SIZE_MAX, flush_x = SIZE_MAX, flush_a = SIZE_MAX;
  for (size_t i = 0; i < yes.order.size(); ++i) {
    const SatNode& n = nodes[yes.order[i].node];
    if (n.role == SatRole::Read && n.op.addr == kX) load_x = i;
    if (n.role == SatRole::Flush && n.op.addr == kX) flush_x = i;
    if (n.role == SatRole::Flush && n.op.addr == kA) flush_a = i;
  }
  ASSERT_NE(load_x, SIZE_MAX);
  ASSERT_NE(flush_a, SIZE_MAX);
  EXPECT_LT(load_x, flush_x);
  EXPECT_LT(flush_x, flush_a);
  EXPECT_EQ(yes.order[load_x].key, 0u);
}

// Under tso the other thread sees a buffered store only through its flush,
// and T0's load of y reads from T1's flush of y: no clause orders a node of
// T0 against one of T1 (SatTransitivity.h), so the formula has no order
// variable between the two threads, and still finds the witness.
TEST(SatTsoEncoding, ThreadsSeenOnlyThroughFlushesAreNotOrderedAgainstEachOther) {
  SatEventGraph g(true);
  for (const Trace& t : three_orders(true)) ASSERT_TRUE(g.merge(t.events.data(), t.events.size())) << g.why();
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer r = encoder.solve({});
  ASSERT_EQ(r.result, SatSolver::Result::Sat);
  const auto& nodes = g.nodes();
  std::vector<uint32_t> t0, t1;
  uint32_t load_x = kSatNone, flush_x = kSatNone;
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    if (!nodes[n].known || nodes[n].role == SatRole::Flush) {
      if (nodes[n].role == SatRole::Flush && nodes[n].op.addr == kX) flush_x = n;
      continue;
    }
    (nodes[n].op.thread == 0 ? t0 : t1).push_back(n);
    if (nodes[n].role == SatRole::Read && nodes[n].op.addr == kX) load_x = n;
  }
  ASSERT_FALSE(t0.empty());
  ASSERT_FALSE(t1.empty());
  for (uint32_t a : t0)
    for (uint32_t b : t1) EXPECT_FALSE(encoder.has_order(a, b)) << a << " " << b;
  ASSERT_NE(load_x, kSatNone);
  ASSERT_NE(flush_x, kSatNone);
  EXPECT_TRUE(encoder.has_order(load_x, flush_x));
}

// Store buffering with a fence in each thread: T0 stores x, fences, loads y
// and, having read 0, stores z; T1 stores y, fences, loads x and, having
// read 0, loads z. z == 1 needs both loads to read 0, which the fences
// forbid. The cycle (T1's load before x's flush, the flush before T0's
// fence, ... back to T1's load) runs through four instances; the flush
// windows (SatTsoEncoding::encode_windows) turn it into an order between
// the two threads, where transitivity is eager: no lazy refinement.
TEST(SatTsoEncoding, FlushWindowsRefuteFencedStoreBufferingWithoutRefinement) {
  constexpr uint64_t kZ = 0x4000;
  auto fence = [](Trace& t, uint16_t thread) {
    shm::Event e{};
    e.step = uint32_t(t.events.size());
    e.thread = thread;
    e.kind = uint16_t(OpKind::Fence);
    e.site = 0x9000 + thread;
    e.order = uint8_t(MemOrder::SeqCst);
    t.events.push_back(e);
  };
  Trace a{true, {}}, b{true, {}};
  a.op(0, OpKind::Store, kX, 0, 1);
  fence(a, 0);
  a.op(0, OpKind::Load, kY, 0);
  a.op(0, OpKind::Store, kZ, 0, 1);
  a.op(1, OpKind::Store, kY, 0, 1);
  fence(a, 1);
  a.op(1, OpKind::Load, kX, 1);
  b.op(1, OpKind::Store, kY, 0, 1);
  fence(b, 1);
  b.op(1, OpKind::Load, kX, 0);
  b.op(1, OpKind::Load, kZ, 0);
  b.op(0, OpKind::Store, kX, 0, 1);
  fence(b, 0);
  b.op(0, OpKind::Load, kY, 1);
  SatEventGraph g(true);
  for (const Trace* t : {&a, &b}) ASSERT_TRUE(g.merge(t->events.data(), t->events.size())) << g.why();
  auto solver = make_cadical_solver();
  SatEncoder encoder(g, *solver);
  SatAnswer r = encoder.solve({});
  EXPECT_EQ(r.result, SatSolver::Result::Unsat);
  EXPECT_EQ(r.refinements, 0u);
}

}  // namespace
}  // namespace ctrl
