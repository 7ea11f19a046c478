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

// Spin detection: a thread performs the read it is pending at (as the agent
// does: the pending operation, then memory_loaded).
class SpinTest : public ModelTest {
 protected:
  static constexpr uint64_t kSite = 0x401000, kSite2 = 0x401010, kX = 0x7000, kBound = 0x7100;
  void at_read(uint32_t t, uint64_t site, uint64_t addr, uint64_t state) {
    PendingOp op = memory_op(OpKind::Load, addr, 4, site);
    op.state = state;
    m.set_pending(t, op);
  }
  void read(uint32_t t, uint64_t site, uint64_t addr, uint64_t state) {
    at_read(t, site, addr, state);
    m.memory_loaded(t, site, addr, 4);
  }
};

TEST_F(SpinTest, ARereadInTheSameStateWaitsForAWrite) {
  read(t1, kSite, kX, 0x11);
  at_read(t1, kSite, kX, 0x11);
  EXPECT_TRUE(m.awaiting(t1));
  EXPECT_TRUE(m.same_state_repeat(t1));
  EXPECT_FALSE(m.enabled(t1));
  m.memory_written(kX + 2, 1, t2);  // overlaps
  EXPECT_FALSE(m.awaiting(t1));
  EXPECT_TRUE(m.same_state_repeat(t1)) << "the flag for DPOR ignores writes";
}

TEST_F(SpinTest, ALoopWhoseProgressIsInRegistersIsNoSpin) {
  // for (i = 0; i < bound; ++i) sum += a[i]: the bound is re-read unchanged,
  // but the counter (a register) differs at each visit.
  read(t1, kSite, kBound, 0x21);
  read(t1, kSite2, kX, 0x22);
  at_read(t1, kSite, kBound, 0x23);
  EXPECT_FALSE(m.awaiting(t1));
  EXPECT_FALSE(m.same_state_repeat(t1));
  EXPECT_TRUE(m.enabled(t1));
}

TEST_F(SpinTest, NoSpinWhileHoldingAMutexAnotherThreadWaitsFor) {
  // while (!done) { lock; re-read; unlock; }: inside its critical section the
  // thread re-reads unchanged, but it is about to release the mutex the
  // thread that would write waits for (samples/lock_polling).
  m.mutex_locked(t1, kM);
  read(t1, kSite, kX, 0x51);
  at_read(t1, kSite, kX, 0x51);
  EXPECT_TRUE(m.awaiting(t1)) << "nobody waits for the mutex: a spin";
  m.set_pending(t2, PendingOp{OpKind::MutexLock, kM});
  EXPECT_FALSE(m.awaiting(t1));
  EXPECT_TRUE(m.enabled(t1));
  // Joining the spinner is no reason to let it run: it never finishes.
  m.set_pending(t2, PendingOp{OpKind::ThreadJoin, 0, 0, 0, t1});
  EXPECT_TRUE(m.awaiting(t1));
}

TEST_F(SpinTest, AnUnknownStateIsNeverASpin) {
  read(t1, kSite, kX, 0);
  at_read(t1, kSite, kX, 0);
  EXPECT_FALSE(m.awaiting(t1));
  EXPECT_FALSE(m.same_state_repeat(t1));
}

TEST_F(SpinTest, OnlyTheLatestVisitOfTheReadCounts) {
  // As DPOR's mirror of the rule assumes (DporStrategy::movable).
  read(t1, kSite, kX, 0x31);
  read(t1, kSite, kX, 0x32);
  at_read(t1, kSite, kX, 0x31);
  EXPECT_FALSE(m.awaiting(t1));
  EXPECT_FALSE(m.same_state_repeat(t1));
}

TEST_F(SpinTest, ItsOwnWriteIsProgressAStoreOfTheSameValueIsNot) {
  read(t1, kSite, kX, 0x41);
  m.memory_written(kBound, 4, kNoThread);  // t1 stored what was there (kUnchanged)
  at_read(t1, kSite, kX, 0x41);
  EXPECT_TRUE(m.awaiting(t1));
  m.memory_written(kBound, 4, t1);  // t1 changed memory elsewhere
  EXPECT_FALSE(m.awaiting(t1));
}

TEST_F(SpinTest, ABufferedStoreIsProgressForItsThreadOnly) {
  read(t1, kSite, kX, 0x51);
  read(t2, kSite, kX, 0x52);
  at_read(t1, kSite, kX, 0x51);
  at_read(t2, kSite, kX, 0x52);
  m.memory_written(kX, 4, t1, /*visible=*/false);
  EXPECT_FALSE(m.awaiting(t1)) << "t1 reads its own buffered store";
  EXPECT_TRUE(m.awaiting(t2)) << "t2 sees it only when it is flushed";
  m.memory_written(kX, 4, kNoThread);  // the flush
  EXPECT_FALSE(m.awaiting(t2));
}

TEST_F(SpinTest, TheProbeLetsAllAwaitingThreadsRunAndConfirmsASpin) {
  read(t1, kSite, kX, 0x61);
  at_read(t1, kSite, kX, 0x61);
  ASSERT_TRUE(m.awaiting(t1));
  EXPECT_TRUE(m.start_spin_probe());
  EXPECT_FALSE(m.awaiting(t1));
  for (uint32_t k = 0; k < ExecutionModel::kSpinProbe; ++k) {
    m.memory_loaded(t1, kSite, kX, 4);
    m.check_probe(t1);
  }
  EXPECT_EQ(m.confirmed_spinner(), t1);
  EXPECT_TRUE(m.awaiting(t1));
  EXPECT_FALSE(m.start_spin_probe()) << "a confirmed spin is not probed again";
}

TEST(ModelLimits, SixtyFourThreadsAtMost) {
  ExecutionModel m;
  for (uint32_t i = 0; i < shm::kMaxThreads; ++i) EXPECT_EQ(m.add_thread(), i);
  EXPECT_EQ(m.add_thread(), kNoThread);
}

}  // namespace

// Futexes (agent/KernelWaits.h): a waiter is enabled once a wake on its
// address picks it; wakes take the oldest waiters first, honour bitsets and
// stop at n; a timed waiter is always enabled.
TEST(FutexModel, AWaiterIsEnabledOnlyAfterAWakeOnItsAddress) {
  ExecutionModel m;
  uint32_t t0 = m.add_thread(), t1 = m.add_thread();
  constexpr uint64_t kWord = 0x7000;
  m.futex_wait_begin(t1, kWord, 0, ~0u, false, 0x10);
  EXPECT_FALSE(m.enabled(t1));
  EXPECT_TRUE(m.futex_waiting(t1));
  EXPECT_EQ(m.futex_wake(kWord + 4, ~0u, 1), 0u);  // another address
  EXPECT_FALSE(m.enabled(t1));
  EXPECT_EQ(m.futex_wake(kWord, ~0u, 1), 1u);
  EXPECT_TRUE(m.enabled(t1));
  EXPECT_EQ(m.futex_wake(kWord, ~0u, 1), 0u);  // already woken: not counted twice
  EXPECT_TRUE(m.enabled(t0));
  EXPECT_NE(m.describe_wait(t1).find("futex"), std::string::npos);
}

TEST(FutexModel, WakesTakeTheOldestWaitersUpToN) {
  ExecutionModel m;
  m.add_thread();
  uint32_t a = m.add_thread(), b = m.add_thread(), c = m.add_thread();
  constexpr uint64_t kWord = 0x7000;
  m.futex_wait_begin(b, kWord, 0, ~0u, false, 0);
  m.futex_wait_begin(c, kWord, 0, ~0u, false, 0);
  m.futex_wait_begin(a, kWord, 0, ~0u, false, 0);
  EXPECT_EQ(m.futex_wake(kWord, ~0u, 2), 2u);
  EXPECT_TRUE(m.enabled(b));
  EXPECT_TRUE(m.enabled(c));
  EXPECT_FALSE(m.enabled(a));
  EXPECT_EQ(m.futex_wake(kWord, ~0u, INT32_MAX), 1u);
  EXPECT_TRUE(m.enabled(a));
}

TEST(FutexModel, BitsetsMustMeet) {
  ExecutionModel m;
  m.add_thread();
  uint32_t a = m.add_thread(), b = m.add_thread();
  constexpr uint64_t kWord = 0x7000;
  m.futex_wait_begin(a, kWord, 0, 0x1, false, 0);
  m.futex_wait_begin(b, kWord, 0, 0x2, false, 0);
  EXPECT_EQ(m.futex_wake(kWord, 0x2, 5), 1u);
  EXPECT_FALSE(m.enabled(a));
  EXPECT_TRUE(m.enabled(b));
}

TEST(FutexModel, ATimedWaiterIsAlwaysEnabled) {
  ExecutionModel m;
  m.add_thread();
  uint32_t a = m.add_thread();
  m.futex_wait_begin(a, 0x7000, 3, ~0u, true, 0);
  EXPECT_TRUE(m.enabled(a));
  EXPECT_TRUE(m.futex_waiting(a));  // chosen now, it times out
}

TEST(FutexModel, RequeueWakesSomeAndMovesTheRest) {
  ExecutionModel m;
  m.add_thread();
  uint32_t a = m.add_thread(), b = m.add_thread(), c = m.add_thread();
  constexpr uint64_t kCond = 0x7000, kLock = 0x8000;
  m.futex_wait_begin(a, kCond, 0, ~0u, false, 0);
  m.futex_wait_begin(b, kCond, 0, ~0u, false, 0);
  m.futex_wait_begin(c, kCond, 0, ~0u, false, 0);
  uint32_t woken = 0;
  EXPECT_EQ(m.futex_requeue(kCond, kLock, 1, 1, woken), 2u);
  EXPECT_EQ(woken, 1u);
  EXPECT_TRUE(m.enabled(a));
  EXPECT_FALSE(m.enabled(b));
  EXPECT_EQ(m.thread(b).pending.addr, kLock);
  EXPECT_EQ(m.thread(c).pending.addr, kCond);
  EXPECT_EQ(m.futex_wake(kCond, ~0u, 1), 1u);
  EXPECT_TRUE(m.enabled(c));
  EXPECT_EQ(m.futex_wake(kLock, ~0u, 1), 1u);
  EXPECT_TRUE(m.enabled(b));
}

// Probed kernel waits (agent/KernelWaits.h): enabled when the probe found
// the call ready, or when timed; the oldest unready one is the one that
// blocks in the kernel for real when nothing else can run.
TEST(KernelWaitModel, ReadyOrTimedWaitsAreEnabledAndTheOldestUnreadyOneBlocksOutside) {
  ExecutionModel m;
  uint32_t t0 = m.add_thread(), a = m.add_thread(), b = m.add_thread();
  PendingOp read_op{OpKind::FdWait, 5};
  PendingOp sig_op{OpKind::SignalWait, 0};
  m.kernel_wait_begin(b, read_op);
  m.kernel_wait_begin(a, sig_op);
  EXPECT_FALSE(m.enabled(a));
  EXPECT_FALSE(m.enabled(b));
  EXPECT_EQ(m.oldest_kernel_waiter(), b);
  m.set_ready(b, true);
  EXPECT_TRUE(m.enabled(b));
  EXPECT_EQ(m.oldest_kernel_waiter(), a);
  m.set_ready(b, false);
  m.set_external(b);
  EXPECT_TRUE(m.enabled(b));
  EXPECT_EQ(m.oldest_kernel_waiter(), a);
  PendingOp timed{OpKind::ChildWait, 0};
  timed.timed = true;
  m.kernel_wait_begin(t0, timed);
  EXPECT_TRUE(m.enabled(t0));
  m.kernel_wait_begin(b, read_op);  // a new wait starts unready and not outside
  EXPECT_FALSE(m.enabled(b));
}

namespace ctrl::agent {
namespace {

// libc gives a joined thread's pthread_t to the next thread it creates: the
// handle names the new thread only (the finished one matched before).
TEST(ThreadIdentity, ReusedHandleNamesTheNewThread) {
  ExecutionModel m;
  uint32_t t0 = m.add_thread();
  uint32_t t1 = m.add_thread(t0);
  m.thread_named(t1, 0x1000);
  m.thread_finished(t1);
  EXPECT_EQ(m.find_by_handle(0x1000), t1);
  m.thread_joined(t1, t0);
  EXPECT_EQ(m.find_by_handle(0x1000), kNoThread);
  uint32_t other = m.add_thread(kNoThread);  // not t0's: gets a fresh index
  EXPECT_EQ(other, 2u);
  uint32_t t3 = m.add_thread(t0);
  EXPECT_EQ(t3, t1) << "the joiner reuses the index of the thread it joined";
  m.thread_named(t3, 0x1000);
  EXPECT_EQ(m.find_by_handle(0x1000), t3);
  EXPECT_FALSE(m.thread(t3).finished);
  m.set_pending(t0, PendingOp{OpKind::ThreadJoin, 0, 0, 0, t3});
  EXPECT_FALSE(m.enabled(t0)) << "joins the new thread, which has not finished";
}

TEST(ThreadIdentity, DetachedThreadsKeepTheirIndex) {
  ExecutionModel m;
  uint32_t t0 = m.add_thread();
  uint32_t t1 = m.add_thread(t0);
  m.thread_named(t1, 0x1000);
  m.thread_detached(t1);
  EXPECT_EQ(m.find_by_handle(0x1000), t1);
  m.thread_finished(t1);
  EXPECT_EQ(m.find_by_handle(0x1000), kNoThread) << "a finished detached thread's handle is libc's again";
  uint32_t t2 = m.add_thread(t0);
  EXPECT_EQ(t2, 2u) << "nothing orders a detached thread's end before a creation";
  m.thread_named(t2, 0x1000);
  EXPECT_EQ(m.find_by_handle(0x1000), t2);
  // Detached after it finished: its handle is released at once.
  uint32_t t3 = m.add_thread(t0);
  m.thread_named(t3, 0x2000);
  m.thread_finished(t3);
  m.thread_detached(t3);
  EXPECT_EQ(m.find_by_handle(0x2000), kNoThread);
}

// The limit counts threads not joined by their creator: a pool that creates
// and joins its workers round after round never reaches it.
TEST(ThreadIdentity, JoinedIndicesAreReusedByTheJoiner) {
  ExecutionModel m;
  uint32_t t0 = m.add_thread();
  for (int round = 0; round < 100; ++round) {
    uint32_t a = m.add_thread(t0), b = m.add_thread(t0);
    ASSERT_NE(a, kNoThread);
    ASSERT_NE(b, kNoThread);
    EXPECT_EQ(a, 1u);
    EXPECT_EQ(b, 2u);
    m.thread_finished(a);
    m.thread_finished(b);
    m.thread_joined(a, t0);
    m.thread_joined(b, t0);
  }
  EXPECT_EQ(m.thread_count(), 3u);
  // Only the joiner reuses a joined thread's index: b, created by a and
  // joined by t0, is not a's to reuse (t0's join need not happen before a's
  // next creation).
  uint32_t a = m.add_thread(t0), b = m.add_thread(a);
  EXPECT_EQ(b, 3u);
  m.thread_finished(b);
  m.thread_joined(b, t0);
  EXPECT_EQ(m.add_thread(a), 4u);
  EXPECT_EQ(m.add_thread(t0), 2u);
  EXPECT_EQ(m.add_thread(t0), 3u);
}

}  // namespace
}  // namespace ctrl::agent
