// The OpKind table (protocol/OpKinds.def): values stored in traces stay
// where they were, names are unique, and the property predicates say what
// the case lists they replaced said.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "Operation.h"

namespace ctrl {
namespace {

TEST(OpKinds, ValuesStoredInTracesNeverMove) {
  // A sample of values traces hold: moving one breaks every old trace.
  EXPECT_EQ(uint16_t(OpKind::ThreadStart), 1);
  EXPECT_EQ(uint16_t(OpKind::MutexLock), 6);
  EXPECT_EQ(uint16_t(OpKind::Yield), 28);
  EXPECT_EQ(uint16_t(OpKind::AtomicLoad), 29);
  EXPECT_EQ(uint16_t(OpKind::Load), 35);
  EXPECT_EQ(uint16_t(OpKind::Flush), 38);
  EXPECT_EQ(uint16_t(OpKind::SignalSend), 46);
  EXPECT_EQ(uint16_t(OpKind::Count), 47);
}

TEST(OpKinds, NamesAreUniqueAndKnown) {
  std::set<std::string> names;
  for (uint16_t k = 0; k < uint16_t(OpKind::Count); ++k) {
    std::string name = op_name(OpKind(k));
    EXPECT_NE(name, "?") << k;
    EXPECT_TRUE(names.insert(name).second) << name;
  }
  EXPECT_STREQ(op_name(OpKind::CondReacquire), "cond_wake");
  EXPECT_STREQ(op_name(OpKind::FutexWoken), "futex_wait_end");
  EXPECT_STREQ(op_name(OpKind::Count), "?");
}

TEST(OpKinds, MemoryAccesses) {
  for (OpKind k : {OpKind::Load, OpKind::AtomicLoad}) EXPECT_TRUE(op_only_reads(k)) << op_name(k);
  for (OpKind k : {OpKind::Store, OpKind::AtomicStore}) EXPECT_TRUE(op_only_writes(k)) << op_name(k);
  for (OpKind k : {OpKind::Rmw, OpKind::AtomicRmw, OpKind::AtomicCas}) EXPECT_TRUE(op_is_rmw(k)) << op_name(k);
  // A flush writes, but as its own actor: no kind-level property.
  for (OpKind k : {OpKind::Flush, OpKind::FutexWait, OpKind::Fence, OpKind::MutexLock, OpKind::Count}) {
    EXPECT_FALSE(op_reads_memory(k)) << op_name(k);
    EXPECT_FALSE(op_writes_memory(k)) << op_name(k);
  }
  int atomics = 0, buffered = 0;
  for (uint16_t k = 0; k < uint16_t(OpKind::Count); ++k) {
    atomics += op_is_atomic(OpKind(k));
    buffered += op_may_buffer(OpKind(k));
  }
  EXPECT_EQ(atomics, 4);
  EXPECT_EQ(buffered, 3);  // Store, AtomicStore, Rmw
  EXPECT_TRUE(op_may_buffer(OpKind::Rmw));
  EXPECT_FALSE(op_may_buffer(OpKind::AtomicRmw));
}

TEST(OpKinds, Synchronisation) {
  int acquires = 0, objects = 0, kernel = 0, sync = 0;
  for (uint16_t k = 0; k < uint16_t(OpKind::Count); ++k) {
    acquires += op_acquires(OpKind(k));
    objects += op_on_object(OpKind(k));
    kernel += op_is_kernel_wait(OpKind(k));
    sync += op_is_sync(OpKind(k));
  }
  EXPECT_EQ(acquires, 12);  // 3 mutex locks, 6 rwlock locks, 3 semaphore waits
  EXPECT_EQ(objects, 17);   // those, the unlocks, sem_post, condition signals
  EXPECT_EQ(kernel, 3);
  EXPECT_EQ(sync, 30);
  EXPECT_TRUE(op_on_mutex(OpKind::CondReacquire));
  EXPECT_TRUE(op_on_condition(OpKind::CondReacquire));
  EXPECT_FALSE(op_on_object(OpKind::CondWait));  // also on its mutex
  EXPECT_FALSE(op_is_sync(OpKind::ThreadJoin));  // a thread, not an object
}

}  // namespace
}  // namespace ctrl
