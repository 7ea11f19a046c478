// The analyses' memory models through their one interface
// (analyses/ModelAnalysis.h): how each is explored, the store-buffer
// dependence rules DPOR asks of TSO and PSO, and the graph consistency of
// C11 and RC11.
#include "ModelAnalysis.h"

#include <gtest/gtest.h>

#include <vector>

#include "C11Consistency.h"
#include "DporStrategy.h"
#include "ExecutionGraph.h"
#include "GraphStrategy.h"
#include "Strategy.h"
#include "WeakTraceStrategy.h"

namespace ctrl {
namespace {

using Exploration = ModelAnalysis::Exploration;

bool never(const void*, uint32_t, const Access&) { return false; }
bool always(const void*, uint32_t, const Access&) { return true; }

TEST(ModelAnalysis, EachModelIsItsOwnObjectAndSaysHowItIsExplored) {
  struct Row {
    shm::MemoryModel id;
    Exploration how;
    bool buffers, sfence, later;
  };
  for (const Row& r : {Row{shm::MemoryModel::SC, Exploration::Dependence, false, false, false},
                       Row{shm::MemoryModel::TSO, Exploration::Dependence, true, false, false},
                       Row{shm::MemoryModel::PSO, Exploration::Dependence, true, true, false},
                       Row{shm::MemoryModel::C11, Exploration::Graphs, false, false, true},
                       Row{shm::MemoryModel::RC11, Exploration::Graphs, false, false, false},
                       Row{shm::MemoryModel::RA, Exploration::WeakTraces, false, false, false}}) {
    const ModelAnalysis& m = model_analysis(r.id);
    EXPECT_EQ(m.id(), r.id);
    EXPECT_EQ(m.exploration(), r.how) << int(r.id);
    EXPECT_EQ(m.store_buffers(), r.buffers) << int(r.id);
    EXPECT_EQ(m.sfence_orders_flushes(), r.sfence) << int(r.id);
    EXPECT_EQ(m.reads_from_later_stores(), r.later) << int(r.id);
  }
}

TEST(ModelAnalysis, TheFactoryBuildsEachModelsStrategy) {
  EXPECT_NE(dynamic_cast<DporStrategy*>(make_strategy("dpor", 0, -1, 3, shm::MemoryModel::TSO).get()), nullptr);
  EXPECT_NE(dynamic_cast<GraphStrategy*>(make_strategy("dpor", 0, -1, 3, shm::MemoryModel::RC11).get()), nullptr);
  EXPECT_THROW(make_strategy("random", 0, -1, 3, shm::MemoryModel::C11), std::invalid_argument);
  // --model ra (issue 23): weak traces, a plan's Choices as under c11.
  EXPECT_NE(dynamic_cast<WeakTraceStrategy*>(make_strategy("dpor", 0, -1, 3, shm::MemoryModel::RA).get()), nullptr);
  EXPECT_THROW(make_strategy("pct", 0, -1, 3, shm::MemoryModel::RA), std::invalid_argument);
  EXPECT_TRUE(model_analysis(shm::MemoryModel::RA).plans_choices());
  EXPECT_EQ(shm::memory_model_named("ra"), shm::MemoryModel::RA);
}

TEST(ModelAnalysis, StoreBufferModelsKeepASleeperAcrossAFlushOnlyWhereItReadsItsOwnBytes) {
  shm::Event flush{};
  flush.kind = uint16_t(OpKind::Flush);
  flush.thread = uint16_t(shm::kFlushActorBase + 3);
  flush.owner = 3;
  flush.addr = 0x1000;
  flush.size = 8;
  shm::Event store = flush;
  store.kind = uint16_t(OpKind::Store);
  store.thread = 3;
  Access load = access_of(OpKind::Load, 0x1000, 8, 0, false, 0, true);
  Access rmw = access_of(OpKind::Rmw, 0x1000, 8, 0, false, 0, true);
  ModelAnalysis::ForwardsWhole no{nullptr, never}, yes{nullptr, always};
  for (auto id : {shm::MemoryModel::TSO, shm::MemoryModel::PSO}) {
    const ModelAnalysis& m = model_analysis(id);
    EXPECT_TRUE(m.keeps_asleep(flush, 3, load, no)) << "its own thread's flush";
    EXPECT_TRUE(m.keeps_asleep(flush, 3, rmw, no));
    EXPECT_FALSE(m.keeps_asleep(flush, 1, load, no)) << "another thread's load, from memory";
    EXPECT_TRUE(m.keeps_asleep(flush, 1, load, yes)) << "another thread's load, forwarded whole";
    EXPECT_FALSE(m.keeps_asleep(flush, 1, rmw, yes)) << "a read-modify-write is not forwarded";
    EXPECT_FALSE(m.keeps_asleep(store, 1, load, yes)) << "only flushes";
  }
  for (auto id : {shm::MemoryModel::SC, shm::MemoryModel::C11, shm::MemoryModel::RC11})
    EXPECT_FALSE(model_analysis(id).keeps_asleep(flush, 3, load, yes));
}

// Store buffering on two locations: each thread stores one and loads the
// other, both loads reading the initial value. Consistent with relaxed
// accesses, not with seq_cst ones (psc), under C11 and RC11 alike.
ExecutionGraph store_buffering(MemOrder order) {
  std::vector<shm::Event> events(4);
  auto set = [&](int k, uint32_t thread, OpKind kind, uint64_t addr) {
    shm::Event& e = events[k];
    e.step = uint32_t(k);
    e.thread = uint16_t(thread);
    e.kind = uint16_t(kind);
    e.addr = addr;
    e.size = 4;
    e.order = uint8_t(order);
    if (kind == OpKind::AtomicStore) e.value_written = 1;
  };
  set(0, 1, OpKind::AtomicStore, 0x1000);
  set(1, 2, OpKind::AtomicStore, 0x2000);
  set(2, 1, OpKind::AtomicLoad, 0x2000);
  set(3, 2, OpKind::AtomicLoad, 0x1000);
  std::vector<StepChoice> choices(4);
  for (int k : {2, 3}) {
    choices[k].rf = kInit;
    choices[k].choice.kind = shm::ChoiceKind::ReadFrom;
    choices[k].choice.from = shm::kFromInit;
  }
  return ExecutionGraph::build(events.data(), events.size(), choices);
}

TEST(ModelAnalysis, GraphModelsCheckConsistencyWithTheirOwnAxioms) {
  ExecutionGraph relaxed = store_buffering(MemOrder::Relaxed), sc = store_buffering(MemOrder::SeqCst);
  for (auto id : {shm::MemoryModel::C11, shm::MemoryModel::RC11}) {
    const ModelAnalysis& m = model_analysis(id);
    EXPECT_TRUE(m.consistent(relaxed)) << m.inconsistency(relaxed);
    EXPECT_FALSE(m.consistent(sc));
    EXPECT_EQ(m.inconsistency(sc), inconsistency(sc, id));
  }
  // Dependence-explored models have no graph axioms.
  EXPECT_TRUE(model_analysis(shm::MemoryModel::SC).consistent(sc));
}

}  // namespace
}  // namespace ctrl
