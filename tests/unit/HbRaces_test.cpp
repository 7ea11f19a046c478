// The sc race check on hand-made event logs: an unordered pair of plain
// writes races; a mutex, a join, or an atomic flag's reads-from orders it;
// a plain field beside an atomic one is plain, per byte; DWARF-declared
// atomic variables and inline atomic code are atomic; a stop request gives up.
#include "HbRaces.h"

#include <gtest/gtest.h>

#include "Operation.h"

namespace ctrl {
namespace {

constexpr uint64_t kData = 0x10000, kLock = 0x20000, kFlag = 0x30000;

shm::Event ev(uint32_t thread, OpKind kind, uint64_t addr = 0, uint32_t size = 0, uint64_t aux = 0) {
  shm::Event e{};
  e.thread = uint16_t(thread);
  e.kind = uint16_t(kind);
  e.addr = addr;
  e.size = size;
  e.aux = aux;
  e.site = 0x1000 + addr;
  if (op_is_instruction(kind)) {
    e.flags = shm::kInstruction;
    e.order = uint8_t(MemOrder::NotAtomic);
  }
  return e;
}

shm::Event locked(uint32_t thread, uint64_t addr, uint32_t size) {
  shm::Event e = ev(thread, OpKind::Rmw, addr, size);
  e.flags |= shm::kLocked;
  return e;
}

// main creates T1 and T2; `one` and `two` are their bodies.
std::vector<shm::Event> two_threads(const std::vector<shm::Event>& one, const std::vector<shm::Event>& two) {
  std::vector<shm::Event> v{ev(0, OpKind::ThreadCreate, 0, 0, 1), ev(0, OpKind::ThreadCreate, 0, 0, 2),
                            ev(1, OpKind::ThreadStart)};
  v.insert(v.end(), one.begin(), one.end());
  v.push_back(ev(1, OpKind::ThreadExit));
  v.push_back(ev(2, OpKind::ThreadStart));
  v.insert(v.end(), two.begin(), two.end());
  v.push_back(ev(2, OpKind::ThreadExit));
  v.push_back(ev(0, OpKind::ThreadJoin, 0, 0, 1));
  v.push_back(ev(0, OpKind::ThreadJoin, 0, 0, 2));
  v.push_back(ev(0, OpKind::Load, kData, 4));  // after both joins: ordered
  return v;
}

TEST(HbRaces, UnlockedWritesRace) {
  auto v = two_threads({ev(1, OpKind::Store, kData, 4)}, {ev(2, OpKind::Store, kData, 4)});
  HbRaceCheck r = find_hb_races(v.data(), v.size(), DeclaredAtomics{});
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].kind, BugKind::DataRace);
  EXPECT_EQ(r.races[0].facts.accesses[0].step, 3u);
  EXPECT_EQ(r.races[0].facts.accesses[1].step, 6u);
  EXPECT_NE(r.races[0].message.find("a non-atomic write by thread 1 (step 4)"), std::string::npos);
}

TEST(HbRaces, OneMutexOrdersTwoDoNot) {
  auto locked_store = [](uint32_t t, uint64_t lock) {
    return std::vector<shm::Event>{ev(t, OpKind::MutexLock, lock), ev(t, OpKind::Store, kData, 8),
                                   ev(t, OpKind::MutexUnlock, lock)};
  };
  auto same = two_threads(locked_store(1, kLock), locked_store(2, kLock));
  EXPECT_TRUE(find_hb_races(same.data(), same.size(), DeclaredAtomics{}).races.empty());
  auto other = two_threads(locked_store(1, kLock), locked_store(2, kLock + 64));
  EXPECT_EQ(find_hb_races(other.data(), other.size(), DeclaredAtomics{}).races.size(), 1u);
}

TEST(HbRaces, AtomicFlagPassesTheData) {
  // T1: data = 1; flag = 1 (xchg)  ||  T2: r = flag (plain mov, atomic by the
  // xchg on its bytes); r2 = data: ordered by reads-from.
  auto v = two_threads({ev(1, OpKind::Store, kData, 4), locked(1, kFlag, 4)},
                       {ev(2, OpKind::Load, kFlag, 4), ev(2, OpKind::Load, kData, 4)});
  HbRaceCheck r = find_hb_races(v.data(), v.size(), DeclaredAtomics{});
  EXPECT_TRUE(r.races.empty());
  EXPECT_EQ(r.plain_atomic, 1u);
}

TEST(HbRaces, PlainFieldBesideAnAtomicIsPlain) {
  // struct { atomic_int x; int z; }: lock xadd on x, plain z on the next 4 bytes.
  auto v = two_threads({locked(1, kData, 4), ev(1, OpKind::Store, kData + 4, 4)},
                       {locked(2, kData, 4), ev(2, OpKind::Load, kData + 4, 4)});
  HbRaceCheck r = find_hb_races(v.data(), v.size(), DeclaredAtomics{});
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].facts.address, kData + 4);
}

TEST(HbRaces, DeclaredAtomicsAreAtomic) {
  // Relaxed inline atomics: plain movs on both sides.
  auto v = two_threads({ev(1, OpKind::Store, kFlag, 4)}, {ev(2, OpKind::Load, kFlag, 4)});
  EXPECT_EQ(find_hb_races(v.data(), v.size(), DeclaredAtomics{}).races.size(), 1u);
  DeclaredAtomics variable;
  variable.add_variable(kFlag, kFlag + 4, "flag", AtomicEvidence::DwarfAtomic);
  variable.finish();
  HbRaceCheck r = find_hb_races(v.data(), v.size(), variable);
  EXPECT_TRUE(r.races.empty());
  ASSERT_FALSE(r.treated.empty());
  EXPECT_EQ(r.treated[0].name, "flag");
  DeclaredAtomics code;  // both instructions inlined from std::atomic<int>::...
  code.add_code(0x1000 + kFlag, 0x1000 + kFlag + 1, "std::atomic<int>::load");
  code.finish();
  EXPECT_TRUE(find_hb_races(v.data(), v.size(), code).races.empty());
}

TEST(HbRaces, StopGivesUp) {
  auto v = two_threads({ev(1, OpKind::Store, kData, 4)}, {ev(2, OpKind::Store, kData, 4)});
  HbRaceCheck r = find_hb_races(v.data(), v.size(), DeclaredAtomics{}, [] { return true; });
  EXPECT_TRUE(r.stopped);
  EXPECT_TRUE(r.races.empty());
}

}  // namespace
}  // namespace ctrl
