// The agent's memory models through their one interface (agent/MemoryModel.h),
// as the interposers and Runtime call them: what a store does, what drains,
// what a load reads, the extra actors and their steps, under SC, TSO, PSO
// and C11/RC11 (a Choice).
#include "MemoryModel.h"

#include <gtest/gtest.h>

namespace ctrl::agent {
namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }
uint64_t bit(uint32_t i) { return uint64_t(1) << i; }

// A thread model with threads 0 and 1, both pending a draining operation
// (a lock): enabled unless the memory model says their buffer is not empty.
struct Threads {
  ExecutionModel model;
  Threads() {
    for (int i = 0; i < 2; ++i) {
      uint32_t t = model.add_thread();
      PendingOp op;
      op.kind = OpKind::Yield;
      op.drains = true;
      model.set_pending(t, op);
    }
  }
};

TEST(AgentMemoryModel, EachModelIsItsOwnObject) {
  for (auto m : {shm::MemoryModel::SC, shm::MemoryModel::TSO, shm::MemoryModel::PSO, shm::MemoryModel::C11,
                 shm::MemoryModel::RC11, shm::MemoryModel::RA})
    EXPECT_EQ(memory_model_for(m).id(), m);
}

TEST(AgentMemoryModel, ScWritesMemoryAtOnceAndHasNoActors) {
  MemoryModel& sc = memory_model_for(shm::MemoryModel::SC);
  sc.reset();
  alignas(8) static uint64_t x = 0;
  MemoryModel::StorePlan p = sc.plan_store(0, addr(&x), 8);
  EXPECT_FALSE(p.buffered);
  EXPECT_FALSE(sc.forwarded(0, addr(&x), 8));
  EXPECT_FALSE(sc.follows_choices());
  EXPECT_EQ(sc.refuses_atomic_size(), nullptr);
  Threads threads;
  threads.model.set_buffered(bit(0));
  EXPECT_EQ(sc.ready_actors(threads.model), 0u);
  EXPECT_TRUE(threads.model.enabled(0)) << "nothing to drain under SC";
  shm::BufferedStore shown[4];
  EXPECT_EQ(sc.shown_stores(shown, 4), 0u);
  EXPECT_EQ(sc.max_threads(), shm::kMaxThreads);
}

TEST(AgentMemoryModel, TsoBuffersAStoreUntilItsFlushStep) {
  MemoryModel& tso = memory_model_for(shm::MemoryModel::TSO);
  tso.reset();
  alignas(8) static uint64_t x = 0;
  MemoryModel::StorePlan p = tso.plan_store(0, addr(&x), 8);
  EXPECT_TRUE(p.buffered);
  EXPECT_FALSE(p.drains) << "a buffered store does not wait for its buffer";
  ASSERT_TRUE(tso.buffer_store(0, addr(&x), 8, 7));
  x = 42;  // the store itself runs natively
  EXPECT_TRUE(tso.forwarded(0, addr(&x), 4)) << "its thread reads its own buffer";
  EXPECT_FALSE(tso.forwarded(1, addr(&x), 4));
  tso.switched_out(0);
  EXPECT_EQ(x, 0u) << "other threads see memory without the buffered store";
  Threads threads;
  EXPECT_EQ(tso.ready_actors(threads.model), bit(0)) << "thread 0's flush actor";
  EXPECT_FALSE(threads.model.enabled(0)) << "a draining operation waits for its buffer";
  EXPECT_TRUE(threads.model.enabled(1));
  shm::BufferedStore shown[4];
  ASSERT_EQ(tso.shown_stores(shown, 4), 1u);
  EXPECT_EQ(shown[0].value, 42u);
  MemoryModel::ActorStep s = tso.step_actor(0, 1);
  EXPECT_EQ(s.kind, OpKind::Flush);
  EXPECT_EQ(s.addr, addr(&x));
  EXPECT_EQ(s.written, 42u);
  EXPECT_EQ(s.aux, 7u) << "the store's step";
  EXPECT_EQ(s.owner, 0u);
  EXPECT_EQ(x, 42u);
  EXPECT_EQ(tso.ready_actors(threads.model), 0u);
  EXPECT_TRUE(threads.model.enabled(0));
  EXPECT_EQ(tso.max_threads(), shm::kFlushActorBase);
  // A store too big for a buffer runs directly, drained.
  alignas(8) static uint8_t big[128];
  p = tso.plan_store(0, addr(big), 128);
  EXPECT_FALSE(p.buffered);
  EXPECT_TRUE(p.drains);
}

TEST(AgentMemoryModel, TsoFlushKeepsItsOwnThreadsSleeperAsleep) {
  MemoryModel& tso = memory_model_for(shm::MemoryModel::TSO);
  tso.reset();
  alignas(8) static uint64_t y = 0;
  shm::Event flush{};
  flush.kind = uint16_t(OpKind::Flush);
  flush.thread = uint16_t(shm::kFlushActorBase + 1);
  flush.owner = 1;
  flush.addr = addr(&y);
  flush.size = 8;
  Access load = access_of(OpKind::Load, addr(&y), 8, 0, false, 0, true);
  EXPECT_TRUE(tso.keeps_asleep(flush, 1, load)) << "its own flush";
  EXPECT_FALSE(tso.keeps_asleep(flush, 0, load)) << "another thread's load of that location";
  ASSERT_TRUE(tso.buffer_store(0, addr(&y), 8, 3));
  y = 1;
  EXPECT_TRUE(tso.keeps_asleep(flush, 0, load)) << "thread 0 reads its own buffered store whatever flushes";
  tso.switched_out(0);
  tso.reset();
  EXPECT_FALSE(memory_model_for(shm::MemoryModel::SC).keeps_asleep(flush, 1, load));
}

TEST(AgentMemoryModel, PsoBuffersPerLocationAndOrdersAcrossAnSfence) {
  MemoryModel& pso = memory_model_for(shm::MemoryModel::PSO);
  pso.reset();
  alignas(16) static uint64_t m[2] = {};
  ASSERT_TRUE(pso.plan_store(0, addr(&m[0]), 8).buffered);
  ASSERT_TRUE(pso.buffer_store(0, addr(&m[0]), 8, 1));
  m[0] = 1;
  pso.store_fence(0);
  ASSERT_TRUE(pso.buffer_store(0, addr(&m[1]), 8, 3));
  m[1] = 2;
  pso.switched_out(0);
  Threads threads;
  EXPECT_EQ(pso.ready_actors(threads.model), bit(0)) << "the store after the sfence waits for the one before";
  EXPECT_EQ(pso.step_actor(0, UINT32_MAX).aux, 1u);
  EXPECT_EQ(pso.ready_actors(threads.model), bit(1)) << "a second location: a second actor";
  EXPECT_EQ(pso.step_actor(1, UINT32_MAX).aux, 3u);
  EXPECT_EQ(m[0], 1u);
  EXPECT_EQ(m[1], 2u);
  // A store across a word runs directly on drained buffers.
  alignas(8) static uint8_t w[16];
  MemoryModel::StorePlan p = pso.plan_store(0, addr(&w[6]), 4);
  EXPECT_FALSE(p.buffered);
  EXPECT_TRUE(p.drains);
}

TEST(AgentMemoryModel, C11FollowsTheStepsChoice) {
  for (auto id : {shm::MemoryModel::C11, shm::MemoryModel::RC11}) {
    MemoryModel& c11 = memory_model_for(id);
    c11.reset();
    EXPECT_TRUE(c11.follows_choices());
    alignas(8) static uint32_t x = 0;
    EXPECT_FALSE(c11.plan_store(0, addr(&x), 4).buffered) << "no store buffers";
    shm::Choice plain{};
    shm::Choice from{};
    from.kind = shm::ChoiceKind::ReadFrom;
    from.value = 0x1'0000'0005;  // cut to the operation's size
    shm::Choice hidden{};
    hidden.flags = shm::kNotMoLast;
    EXPECT_EQ(c11.atomic_read(plain, 4, 9), 9u) << "memory";
    EXPECT_EQ(c11.atomic_read(from, 4, 9), 5u) << "the chosen store's value";
    EXPECT_EQ(c11.atomic_read(from, 8, 9), 0x1'0000'0005u);
    EXPECT_TRUE(c11.atomic_writes(plain));
    EXPECT_FALSE(c11.atomic_writes(hidden)) << "not mo-last: memory keeps the mo-last store";
    MemoryModel::RmwResult r = c11.atomic_rmw(from, 1, 0, RmwOp::Add, 0xff);
    EXPECT_EQ(r.read, 5u);
    EXPECT_EQ(r.written, 4u) << "5 + 255 in a byte";
    EXPECT_TRUE(r.write);
    MemoryModel::CasResult c = c11.atomic_cas(from, 4, 5, 7);
    EXPECT_FALSE(c.ok) << "read 5, expected 7";
    EXPECT_FALSE(c.write);
    EXPECT_EQ(c.read, 5u);
    c = c11.atomic_cas(plain, 4, 7, 7);
    EXPECT_TRUE(c.ok);
    EXPECT_TRUE(c.write);
    EXPECT_NE(c11.refuses_atomic_size(), nullptr) << "16-byte atomics cannot follow a Choice";
    Threads threads;
    EXPECT_EQ(c11.ready_actors(threads.model), 0u);
    EXPECT_EQ(c11.max_threads(), shm::kMaxThreads);
  }
}

}  // namespace
}  // namespace ctrl::agent
