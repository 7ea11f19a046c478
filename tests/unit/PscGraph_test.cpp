// PscGraph (RC11's SC axiom on a sparse graph over the seq_cst events)
// against the bit-matrix psc it replaces when there is no seq_cst fence
// (psc_acyclic_by_matrices), on random graphs: whole graphs (acyclic), and
// the check of one last event added to a prefix, whether it is the base
// graph's own event there or one reading another store (closes_cycle).
#include "PscGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "C11Consistency.h"
#include "ExecutionGraph.h"

using namespace ctrl;

namespace {

constexpr uint64_t kLocs[] = {0x10, 0x20, 0x30};

// A random graph of `n` events on 2 or 3 threads and 3 locations (with 2, po|≠loc;hb;po|≠loc
// is always implied by hb|loc): loads,
// stores and read-modify-writes of random orders, each read reading the
// initial value or an earlier store, mo a random order of each location's
// stores.
ExecutionGraph random_graph(std::mt19937& rng, size_t n) {
  ExecutionGraph g;
  uint32_t threads = 2 + rng() % 2;
  std::vector<uint32_t> per_thread(threads, 0);
  for (uint32_t i = 0; i < n; i++) {
    GraphEvent e;
    e.thread = rng() % threads;
    e.index = per_thread[e.thread]++;
    e.loc = kLocs[rng() % 3];
    e.size = 4;
    uint32_t k = rng() % 10;
    e.kind = k < 4 ? GraphKind::Read : k < 8 ? GraphKind::Write : GraphKind::Rmw;
    e.op = e.kind == GraphKind::Read    ? OpKind::AtomicLoad
           : e.kind == GraphKind::Write ? OpKind::AtomicStore
                                        : OpKind::AtomicRmw;
    static constexpr MemOrder kReadOrders[] = {MemOrder::Relaxed, MemOrder::Acquire, MemOrder::SeqCst,
                                               MemOrder::SeqCst};
    static constexpr MemOrder kWriteOrders[] = {MemOrder::Relaxed, MemOrder::Release, MemOrder::SeqCst,
                                                MemOrder::SeqCst};
    static constexpr MemOrder kRmwOrders[] = {MemOrder::Relaxed, MemOrder::AcqRel, MemOrder::SeqCst, MemOrder::SeqCst};
    e.order = e.kind == GraphKind::Read    ? kReadOrders[rng() % 4]
              : e.kind == GraphKind::Write ? kWriteOrders[rng() % 4]
                                           : kRmwOrders[rng() % 4];
    if (e.is_read()) {
      std::vector<uint32_t> stores{kInit};
      for (uint32_t w = 0; w < i; w++)
        if (g.at(w).is_write() && g.at(w).loc == e.loc) stores.push_back(w);
      e.rf = stores[rng() % stores.size()];
    }
    if (e.is_write()) {
      std::vector<uint32_t>& mo = g.mo(e.loc);
      mo.insert(mo.begin() + long(rng() % (mo.size() + 1)), i);
    }
    g.push(e);
  }
  return g;
}

bool sc_fence_free_acyclic(const ExecutionGraph& g) {
  HappensBefore hb;
  EXPECT_TRUE(hb.compute(g));
  return psc_acyclic_by_matrices(g, hb);
}

// Appends an event of thread t (po index from the graph) to g: a write
// goes last in mo.
void add(ExecutionGraph& g, uint32_t t, GraphKind kind, MemOrder order, uint64_t loc, uint32_t rf = kNone) {
  GraphEvent e;
  e.thread = t;
  for (const GraphEvent& x : g.events()) e.index += x.thread == t;
  e.kind = kind;
  e.op = kind == GraphKind::Read ? OpKind::AtomicLoad : OpKind::AtomicStore;
  e.order = order;
  e.loc = loc;
  e.size = 4;
  e.rf = rf;
  if (e.is_write()) g.mo(loc).push_back(uint32_t(g.size()));
  g.push(e);
}

// RC11's po|≠loc;hb;po|≠loc edge, which random graphs hardly ever need:
// a (x = 1, seq_cst) po c (y = 1, release), read by d (acquire) po b (a
// seq_cst read of z reading 0); z = 1 and then a seq_cst read of x reading
// 0 in a third thread close the cycle a -> b -> (rb) z = 1 -> (po) -> (rb) a.
// Without the synchronisation (d reads y's initial value) there is none.
TEST(PscGraph, FindsTheCycleThroughHappensBeforeBetweenOtherLocations) {
  constexpr uint64_t x = 0x10, y = 0x20, z = 0x30;
  for (bool synchronised : {true, false}) {
    ExecutionGraph g;
    add(g, 0, GraphKind::Write, MemOrder::SeqCst, x);                            // 0: a
    add(g, 0, GraphKind::Write, MemOrder::Release, y);                           // 1: c
    add(g, 1, GraphKind::Read, MemOrder::Acquire, y, synchronised ? 1 : kInit);  // 2: d
    add(g, 1, GraphKind::Read, MemOrder::SeqCst, z, kInit);                      // 3: b
    add(g, 2, GraphKind::Write, MemOrder::SeqCst, z);                            // 4
    add(g, 2, GraphKind::Read, MemOrder::SeqCst, x, kInit);                      // 5
    HappensBefore hb;
    ASSERT_TRUE(hb.compute(g));
    EXPECT_EQ(psc_acyclic_by_matrices(g, hb), !synchronised);
    EXPECT_EQ(PscGraph(g, hb).acyclic(uint32_t(g.size())), !synchronised);
    EXPECT_EQ(PscGraph(g, hb).closes_cycle(g, hb.clock_of(g, 5)), synchronised);
  }
}

TEST(PscGraph, AgreesWithTheMatricesOnWholeGraphs) {
  std::mt19937 rng(7);
  int cycles = 0;
  for (int round = 0; round < 20000; round++) {
    ExecutionGraph g = random_graph(rng, 4 + rng() % 13);
    HappensBefore hb;
    ASSERT_TRUE(hb.compute(g));
    bool expected = psc_acyclic_by_matrices(g, hb);
    cycles += !expected;
    ASSERT_EQ(PscGraph(g, hb).acyclic(uint32_t(g.size())), expected) << "round " << round;
  }
  // Both answers occur.
  EXPECT_GT(cycles, 100);
  EXPECT_LT(cycles, 19900);
}

TEST(PscGraph, AgreesWithTheMatricesOnALastEvent) {
  std::mt19937 rng(11);
  int checked = 0, cycles = 0;
  for (int round = 0; round < 20000; round++) {
    ExecutionGraph base = random_graph(rng, 6 + rng() % 11);
    HappensBefore hb;
    ASSERT_TRUE(hb.compute(base));
    PscGraph psc(base, hb);
    uint32_t i = uint32_t(1 + rng() % (base.size() - 1));
    if (!base.at(i).is_sc()) continue;
    ExecutionGraph cand = base.prefix(i + 1);
    // The prefix before i is consistent (in psc) in the exploration.
    if (!sc_fence_free_acyclic(base.prefix(i))) continue;
    GraphEvent& e = cand.at(i);
    if (e.kind == GraphKind::Read && rng() % 2) {
      // Reading another store than the base graph's event did.
      std::vector<uint32_t> stores{kInit};
      for (uint32_t w = 0; w < i; w++)
        if (cand.at(w).is_write() && cand.at(w).loc == e.loc) stores.push_back(w);
      e.rf = stores[rng() % stores.size()];
    }
    std::vector<uint32_t> clock = hb.clock_of(cand, i);
    bool expected = !sc_fence_free_acyclic(cand);
    cycles += expected;
    checked++;
    ASSERT_EQ(psc.closes_cycle(cand, clock), expected) << "round " << round << ", event " << i;
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(cycles, 50);
}

}  // namespace
