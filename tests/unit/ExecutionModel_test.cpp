// The scheduler's state machine: which threads are enabled as they take and
// release mutexes, wait on conditions and barriers, join, and finish.
#include "ExecutionModel.h"

#include <gtest/gtest.h>

using namespace ctrl;
using namespace ctrl::agent;

namespace {

constexpr uint64_t kM = 0x1000, kM2 = 0x2000, kC = 0x3000, kB = 0x4000, kS = 0x5000, kRw = 0x6000;

class ModelTest : public ::testing::Test {
 protected:
  ExecutionModel m;
  uint32_t t0 = m.add_thread(), t1 = m.add_thread(), t2 = m.add_thread();

  void pending(uint32_t t, OpKind k, uint64_t addr = 0, uint32_t target = kNoThread) {
    PendingOp op;
    op.kind = k;
    op.addr = addr;
    op.target = target;
    m.set_pending(t, op);
  }
  uint64_t bit(uint32_t t) { return uint64_t(1) << t; }
};

TEST_F(ModelTest, NewThreadsAreEnabledAtTheirStart) {
  EXPECT_EQ(m.thread_count(), 3u);
  EXPECT_EQ(m.thread(t1).pending.kind, OpKind::ThreadStart);
  EXPECT_EQ(m.enabled_mask(), bit(t0) | bit(t1) | bit(t2));
}

TEST_F(ModelTest, AHeldMutexDisablesOtherLockers) {
  m.mutex_seen(kM, MutexType::Normal);
  m.mutex_locked(t0, kM);
  pending(t1, OpKind::MutexLock, kM);
  pending(t2, OpKind::MutexTryLock, kM);
  EXPECT_FALSE(m.enabled(t1));
  EXPECT_TRUE(m.enabled(t2)) << "trylock never blocks";
  EXPECT_EQ(m.blocker(t1), t0);
  m.mutex_unlocked(t0, kM);
  EXPECT_TRUE(m.enabled(t1));
  EXPECT_EQ(m.blocker(t1), kNoThread);
}

TEST_F(ModelTest, RelockingANormalMutexBlocksForever) {
  m.mutex_seen(kM, MutexType::Normal);
  m.mutex_locked(t0, kM);
  pending(t0, OpKind::MutexLock, kM);
  EXPECT_FALSE(m.enabled(t0));
  EXPECT_NE(m.describe_wait(t0).find("already holds"), std::string::npos);
}

TEST_F(ModelTest, RecursiveMutexCountsItsDepth) {
  m.mutex_seen(kM, MutexType::Recursive);
  m.mutex_locked(t0, kM);
  pending(t0, OpKind::MutexLock, kM);
  EXPECT_TRUE(m.enabled(t0));
  m.mutex_locked(t0, kM);
  m.mutex_unlocked(t0, kM);
  EXPECT_EQ(m.mutex_owner(kM), int32_t(t0)) << "one unlock of two locks keeps it";
  m.mutex_unlocked(t0, kM);
  EXPECT_EQ(m.mutex_owner(kM), -1);
}

TEST_F(ModelTest, ErrorCheckingMutexRefusesForeignUnlock) {
  m.mutex_seen(kM, MutexType::ErrorCheck);
  m.mutex_locked(t0, kM);
  m.mutex_unlocked(t1, kM);
  EXPECT_EQ(m.mutex_owner(kM), int32_t(t0));
}

TEST_F(ModelTest, JoinWaitsForTheThreadToFinish) {
  pending(t0, OpKind::ThreadJoin, 0, t1);
  EXPECT_FALSE(m.enabled(t0));
  EXPECT_EQ(m.blocker(t0), t1);
  m.thread_finished(t1);
  EXPECT_TRUE(m.enabled(t0));
  EXPECT_FALSE(m.enabled(t1));
  EXPECT_FALSE(m.all_finished());
}

TEST_F(ModelTest, ConditionWaitReleasesTheMutexAndNeedsASignal) {
  m.mutex_locked(t1, kM);
  m.cond_wait_begin(t1, kC, kM, false, 0);
  EXPECT_EQ(m.mutex_owner(kM), -1);
  EXPECT_EQ(m.thread(t1).pending.kind, OpKind::CondReacquire);
  EXPECT_FALSE(m.enabled(t1)) << "not signalled yet";
  m.mutex_locked(t0, kM);
  EXPECT_EQ(m.cond_signal(kC), t1);
  EXPECT_FALSE(m.enabled(t1)) << "signalled, but the signaller holds the mutex";
  m.mutex_unlocked(t0, kM);
  EXPECT_TRUE(m.enabled(t1));
}

TEST_F(ModelTest, SignalWakesWaitersInArrivalOrderAndIsLostWithoutOne) {
  EXPECT_EQ(m.cond_signal(kC), kNoThread) << "a signal with no waiter wakes nobody";
  m.cond_wait_begin(t2, kC, kM, false, 0);
  m.cond_wait_begin(t1, kC, kM, false, 0);
  EXPECT_EQ(m.cond_signal(kC), t2);
  EXPECT_EQ(m.cond_signal(kC), t1);
  EXPECT_EQ(m.cond_signal(kC), kNoThread);
}

TEST_F(ModelTest, BroadcastWakesEveryWaiterOfThatConditionOnly) {
  m.cond_wait_begin(t1, kC, kM, false, 0);
  m.cond_wait_begin(t2, kC + 8, kM2, false, 0);
  EXPECT_EQ(m.cond_broadcast(kC), 1u);
  EXPECT_TRUE(m.thread(t1).signalled);
  EXPECT_FALSE(m.thread(t2).signalled);
}

TEST_F(ModelTest, TimedWaitMayTimeOutWithoutASignal) {
  m.cond_wait_begin(t1, kC, kM, true, 0);
  EXPECT_TRUE(m.enabled(t1));
}

TEST_F(ModelTest, BarrierOpensWhenTheLastThreadArrives) {
  m.barrier_init(kB, 3);
  EXPECT_FALSE(m.barrier_arrive(t0, kB, 0));
  EXPECT_FALSE(m.barrier_arrive(t1, kB, 0));
  EXPECT_FALSE(m.enabled(t0));
  EXPECT_FALSE(m.enabled(t1));
  EXPECT_TRUE(m.barrier_arrive(t2, kB, 0)) << "the last arrival is the serial thread";
  EXPECT_TRUE(m.enabled(t0));
  EXPECT_TRUE(m.enabled(t1));
  // The next round starts closed again.
  EXPECT_FALSE(m.barrier_arrive(t2, kB, 0));
  EXPECT_FALSE(m.enabled(t2));
}

TEST_F(ModelTest, SemaphoreCountsPostsAndWaits) {
  m.sem_seen(kS, 0);
  pending(t1, OpKind::SemWait, kS);
  EXPECT_FALSE(m.enabled(t1));
  m.sem_posted(kS);
  EXPECT_TRUE(m.enabled(t1));
  m.sem_acquired(kS);
  EXPECT_FALSE(m.enabled(t1));
  m.sem_seen(kS, 5);
  EXPECT_FALSE(m.enabled(t1)) << "first sight only";
}

TEST_F(ModelTest, ReadersShareAWriterExcludes) {
  m.rw_read_locked(t0, kRw);
  pending(t1, OpKind::RwReadLock, kRw);
  pending(t2, OpKind::RwWriteLock, kRw);
  EXPECT_TRUE(m.enabled(t1));
  EXPECT_FALSE(m.enabled(t2));
  m.rw_unlocked(t0, kRw);
  EXPECT_TRUE(m.enabled(t2));
  m.rw_write_locked(t2, kRw);
  EXPECT_FALSE(m.enabled(t1));
  EXPECT_EQ(m.blocker(t1), t2);
}

TEST_F(ModelTest, DeadlockIsNoThreadEnabledWhileSomeWait) {
  m.mutex_locked(t1, kM);
  m.mutex_locked(t2, kM2);
  pending(t1, OpKind::MutexLock, kM2);
  pending(t2, OpKind::MutexLock, kM);
  pending(t0, OpKind::ThreadJoin, 0, t1);
  EXPECT_EQ(m.enabled_mask(), 0u);
  EXPECT_FALSE(m.all_finished());
}

TEST_F(ModelTest, HandlesFindThreads) {
  m.thread(t2).handle = 0xabc;
  EXPECT_EQ(m.find_by_handle(0xabc), t2);
  EXPECT_EQ(m.find_by_handle(0xdef), kNoThread);
}

TEST(ModelLimits, SixtyFourThreadsAtMost) {
  ExecutionModel m;
  for (uint32_t i = 0; i < shm::kMaxThreads; ++i) EXPECT_EQ(m.add_thread(), i);
  EXPECT_EQ(m.add_thread(), kNoThread);
}

}  // namespace
