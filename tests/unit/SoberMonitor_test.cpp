// Sober's borderline check on hand-made SC executions: store buffering with
// and without a fence, with whole accesses and with accesses of different
// sizes sharing bytes (the per-byte path), and the background worker.
#include <chrono>
#include "SoberMonitor.h"

#include <gtest/gtest.h>

#include "session/BackgroundMonitor.h"
#include "Operation.h"

namespace ctrl {
namespace {

constexpr uint64_t kX = 0x10000, kY = 0x10040;

shm::Event ev(uint32_t thread, OpKind kind, uint64_t addr = 0, uint32_t size = 0) {
  shm::Event e{};
  e.thread = uint16_t(thread);
  e.kind = uint16_t(kind);
  e.addr = addr;
  e.size = size;
  e.flags = shm::kInstruction;
  return e;
}

shm::Event mfence(uint32_t thread) {
  shm::Event e = ev(thread, OpKind::Fence);
  e.order = uint8_t(MemOrder::SeqCst);
  return e;
}

// T1: x = 1; r1 = y  ||  T2: y = 1; r2 = x, in that SC order: r1 = 0, r2 = 1.
// Under TSO T2's load may pass its buffered store: r2 = 0 too (borderline).
std::vector<shm::Event> store_buffering(uint32_t load_x_size, uint64_t load_x_at, bool fences) {
  std::vector<shm::Event> v;
  v.push_back(ev(1, OpKind::Store, kX, 8));
  if (fences) v.push_back(mfence(1));
  v.push_back(ev(1, OpKind::Load, kY, 8));
  v.push_back(ev(2, OpKind::Store, kY, 8));
  if (fences) v.push_back(mfence(2));
  v.push_back(ev(2, OpKind::Load, load_x_at, load_x_size));
  return v;
}

TEST(SoberMonitor, StoreBufferingIsBorderline) {
  auto v = store_buffering(8, kX, false);
  auto b = find_borderline(v.data(), v.size());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->load, v.size() - 1);
  EXPECT_EQ(b->missed_write, 0u);
  EXPECT_EQ(b->delayed_store, 2u);
  EXPECT_EQ(b->address, kX);
}

TEST(SoberMonitor, FencesMakeItSafe) {
  auto v = store_buffering(8, kX, true);
  EXPECT_FALSE(find_borderline(v.data(), v.size()));
}

TEST(SoberMonitor, ALoadOfPartOfAStoreIsCheckedPerByte) {
  // The 4-byte load of x's upper half shares bytes with the 8-byte store.
  auto v = store_buffering(4, kX + 4, false);
  auto b = find_borderline(v.data(), v.size());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->missed_write, 0u);
  EXPECT_EQ(b->address, kX + 4);
  auto fenced = store_buffering(4, kX + 4, true);
  EXPECT_FALSE(find_borderline(fenced.data(), fenced.size()));
}

TEST(SoberMonitor, ALoadOfOtherBytesIsNoWitness) {
  // T2 reads the word after x: T1's store is not there to miss.
  auto v = store_buffering(8, kX + 8, false);
  EXPECT_FALSE(find_borderline(v.data(), v.size()));
}

TEST(SoberMonitor, TheBackgroundWorkerGivesEachVerdictOnce) {
  BackgroundMonitor m;
  EXPECT_FALSE(m.busy());
  m.submit(store_buffering(8, kX, false));
  EXPECT_TRUE(m.busy());
  auto never = [] { return false; };
  std::optional<Borderline> b;
  ASSERT_TRUE(m.wait(b, never));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->address, kX);
  EXPECT_FALSE(m.busy());
  m.submit(store_buffering(8, kX, true));
  ASSERT_TRUE(m.wait(b, never));
  EXPECT_FALSE(b);
}

// A stop (Ctrl-C, the time limit) does not wait for the check of a long
// execution: wait() gives up and the check is abandoned.
TEST(SoberMonitor, AStopAbandonsALongCheck) {
  std::vector<shm::Event> v;  // a few seconds of checking
  for (uint64_t k = 0; k < 300000; ++k)
    v.push_back(ev(1 + k % 2, k % 3 ? OpKind::Load : OpKind::Store, kX + 64 * (k % 1000), 8));
  // Timed from the submission: building the events is not the monitor's
  // (it took 0.1-0.3 s of page faults on a loaded virtual machine).
  auto started = std::chrono::steady_clock::now();
  {
    BackgroundMonitor m;
    m.submit(v);
    std::optional<Borderline> b;
    EXPECT_FALSE(m.wait(b, [] { return true; }));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
}

}  // namespace
}  // namespace ctrl
