// The agent's value computation under --model c11/rc11 (agent/AtomicChoice.h):
// what a libatomic operation reads and writes given its step's Choice.
#include "AtomicChoice.h"

#include <gtest/gtest.h>

namespace ctrl::agent {
namespace {

shm::Choice make(shm::ChoiceKind kind, uint64_t value = 0, uint8_t flags = 0, uint32_t from = 0) {
  shm::Choice c{};
  c.kind = kind;
  c.flags = flags;
  c.from = from;
  c.value = value;
  return c;
}

const shm::Choice kDefault = make(shm::ChoiceKind::Default);

TEST(AtomicChoice, DefaultReadsMemoryAndWrites) {
  EXPECT_TRUE(c11::plain(kDefault));
  EXPECT_EQ(c11::read_value<uint32_t>(kDefault, 7), 7u);
  EXPECT_TRUE(c11::becomes_mo_last(kDefault));
  c11::Rmw<uint32_t> r = c11::rmw<uint32_t>(kDefault, 5, RmwOp::Add, 3);
  EXPECT_EQ(r.read, 5u);
  EXPECT_EQ(r.written, 8u);
  EXPECT_TRUE(r.write);
}

TEST(AtomicChoice, ReadFromAndPromiseReturnTheValueNotMemory) {
  for (auto kind : {shm::ChoiceKind::ReadFrom, shm::ChoiceKind::Promise}) {
    shm::Choice c = make(kind, 42, 0, shm::kFromInit);
    EXPECT_FALSE(c11::plain(c));
    EXPECT_EQ(c11::read_value<uint64_t>(c, 1), 42u);
    EXPECT_EQ(c11::read_value<int32_t>(c, -1), 42);
  }
}

TEST(AtomicChoice, TheValueIsTruncatedToTheSize) {
  shm::Choice c = make(shm::ChoiceKind::ReadFrom, 0x1122334455667788ull);
  EXPECT_EQ(c11::read_value<uint8_t>(c, 0), 0x88u);
  EXPECT_EQ(c11::read_value<uint16_t>(c, 0), 0x7788u);
  EXPECT_EQ(c11::read_value<uint32_t>(c, 0), 0x55667788u);
  EXPECT_EQ(c11::read_value<uint64_t>(c, 0), 0x1122334455667788ull);
  // A negative value stored as its first bytes.
  shm::Choice minus = make(shm::ChoiceKind::ReadFrom, uint64_t(uint32_t(-5)));
  EXPECT_EQ(c11::read_value<int32_t>(minus, 0), -5);
}

TEST(AtomicChoice, ReadModifyWriteComputesFromTheValueRead) {
  shm::Choice c = make(shm::ChoiceKind::ReadFrom, 0xf0);
  struct Case {
    RmwOp op;
    uint8_t written;
  } cases[] = {{RmwOp::Xchg, 0x3c}, {RmwOp::Add, 0x2c}, {RmwOp::Sub, 0xb4}, {RmwOp::And, 0x30},
               {RmwOp::Or, 0xfc},   {RmwOp::Xor, 0xcc}, {RmwOp::Nand, 0xcf}};
  for (const Case& k : cases) {
    // Memory holds 0x01: never used.
    c11::Rmw<uint8_t> r = c11::rmw<uint8_t>(c, 0x01, k.op, 0x3c);
    EXPECT_EQ(r.read, 0xf0) << int(k.op);
    EXPECT_EQ(r.written, k.written) << int(k.op);
    EXPECT_TRUE(r.write);
  }
}

TEST(AtomicChoice, NotMoLastComputesButDoesNotWrite) {
  shm::Choice store = make(shm::ChoiceKind::Default, 0, shm::kNotMoLast);
  EXPECT_FALSE(c11::plain(store));
  EXPECT_FALSE(c11::becomes_mo_last(store));
  c11::Rmw<uint16_t> r = c11::rmw<uint16_t>(store, 10, RmwOp::Sub, 4);
  EXPECT_EQ(r.read, 10);  // Default: reads memory
  EXPECT_EQ(r.written, 6);
  EXPECT_FALSE(r.write);
  shm::Choice both = make(shm::ChoiceKind::ReadFrom, 100, shm::kNotMoLast);
  c11::Rmw<uint64_t> r2 = c11::rmw<uint64_t>(both, 10, RmwOp::Add, 1);
  EXPECT_EQ(r2.read, 100u);
  EXPECT_EQ(r2.written, 101u);
  EXPECT_FALSE(r2.write);
}

TEST(AtomicChoice, CompareExchangeSucceedsIffTheValueReadIsExpected) {
  // Memory says 1, the Choice says 2: the Choice decides.
  shm::Choice c = make(shm::ChoiceKind::ReadFrom, 2);
  c11::Cas<uint32_t> ok = c11::cas<uint32_t>(c, 1, 2);
  EXPECT_TRUE(ok.ok);
  EXPECT_TRUE(ok.write);
  EXPECT_EQ(ok.read, 2u);
  c11::Cas<uint32_t> failed = c11::cas<uint32_t>(c, 1, 1);
  EXPECT_FALSE(failed.ok);
  EXPECT_FALSE(failed.write);  // a failed compare-exchange never writes
  EXPECT_EQ(failed.read, 2u);  // what *expected gets
  // Default reads memory.
  EXPECT_TRUE(c11::cas<uint32_t>(kDefault, 1, 1).ok);
  EXPECT_FALSE(c11::cas<uint32_t>(kDefault, 1, 2).ok);
  // Succeeds, but not mo-last: no write.
  c11::Cas<uint32_t> hidden = c11::cas<uint32_t>(make(shm::ChoiceKind::ReadFrom, 2, shm::kNotMoLast), 1, 2);
  EXPECT_TRUE(hidden.ok);
  EXPECT_FALSE(hidden.write);
}

}  // namespace
}  // namespace ctrl::agent
