// The agent's half of --model c11/rc11 (agent/AtomicChoice.h), with the real
// agent on samples built with libatomic calls: a plan's Choices decide what
// a load or a read-modify-write reads and whether a store reaches memory;
// under SC the same Choices change nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session/Session.h"

namespace ctrl {
namespace {

std::unique_ptr<Session> start(const std::string& sample, shm::MemoryModel model) {
  SessionConfig config;
  config.program = std::string(CTRL_TEST_BIN_DIR) + "/" + sample;
  config.agent = CTRL_TEST_AGENT;
  config.model = model;
  config.max_steps = 10000;
  config.hang_timeout = 20;
  auto session = std::make_unique<Session>(config);
  EXPECT_FALSE(session->start().has_value());
  return session;
}

shm::Choice choice(shm::ChoiceKind kind, uint64_t value, uint8_t flags = 0) {
  shm::Choice c{};
  c.kind = kind;
  c.flags = flags;
  c.from = shm::kFromInit;
  c.value = value;
  return c;
}

// The reference's decisions up to step `k` included, `c` at step k.
ExecutionPlan plan_to(const ExecutionResult& reference, size_t k, shm::Choice c) {
  ExecutionPlan plan;
  for (size_t i = 0; i <= k; ++i) plan.prefix.push_back(reference.events[i].thread);
  plan.choices.resize(k + 1);
  plan.choices[k] = c;
  return plan;
}

// Index of the n-th event of `kind` (from 0), or events.size().
size_t nth(const ExecutionResult& r, OpKind kind, int n = 0) {
  for (size_t i = 0; i < r.events.size(); ++i)
    if (OpKind(r.events[i].kind) == kind && n-- == 0) return i;
  return r.events.size();
}

class C11Agent : public ::testing::Test {
 protected:
  // Message passing, relaxed: under the sticky tail the writer stores data
  // (42) and flag (1), then the reader sees both: no bug.
  void SetUp() override {
    session_ = start("c11_mp_relaxed", shm::MemoryModel::C11);
    reference_ = session_->run(ExecutionPlan{}, 0);
    ASSERT_EQ(reference_.end, ExecutionResult::End::Complete) << reference_.kind_name() << ": " << reference_.message;
    data_store_ = nth(reference_, OpKind::AtomicStore, 0);
    data_load_ = nth(reference_, OpKind::AtomicLoad, 1);
    ASSERT_LT(data_load_, reference_.events.size());
  }
  std::unique_ptr<Session> session_;
  ExecutionResult reference_;
  size_t data_store_ = 0, data_load_ = 0;
};

TEST_F(C11Agent, StoresLogWhatMemoryHeldBefore) {
  const shm::Event& data = reference_.events[data_store_];
  EXPECT_EQ(data.value_written, 42u);
  EXPECT_EQ(data.aux, 0u);  // data's initial value
  const shm::Event& load = reference_.events[data_load_];
  EXPECT_EQ(load.value_read, 42u);
  EXPECT_EQ(load.addr, data.addr);
}

TEST_F(C11Agent, ReadFromMakesTheLoadReturnTheChosenValue) {
  // The reader's load of data reads the initial store (0): the assertion.
  ExecutionResult r = session_->run(plan_to(reference_, data_load_, choice(shm::ChoiceKind::ReadFrom, 0)), 1);
  ASSERT_EQ(r.end, ExecutionResult::End::Bug) << r.message;
  EXPECT_EQ(r.kind, BugKind::Assertion);
  ASSERT_GT(r.events.size(), data_load_);
  EXPECT_EQ(r.events[data_load_].value_read, 0u);
  // A promised value is read the same way (the agent does not check it).
  r = session_->run(plan_to(reference_, data_load_, choice(shm::ChoiceKind::Promise, 42)), 2);
  EXPECT_EQ(r.end, ExecutionResult::End::Complete) << r.kind_name() << ": " << r.message;
}

TEST_F(C11Agent, NotMoLastStoreLeavesMemoryAlone) {
  ExecutionResult r =
      session_->run(plan_to(reference_, data_store_, choice(shm::ChoiceKind::Default, 0, shm::kNotMoLast)), 1);
  // The store is logged with its value, memory keeps 0, the reader reads 0.
  ASSERT_EQ(r.end, ExecutionResult::End::Bug) << r.message;
  EXPECT_EQ(r.events[data_store_].value_written, 42u);
  ASSERT_GT(r.events.size(), data_load_);
  EXPECT_EQ(r.events[data_load_].value_read, 0u);
}

TEST(C11AgentSc, ChoicesAreIgnoredUnderSc) {
  auto session = start("c11_mp_relaxed", shm::MemoryModel::SC);
  ExecutionResult reference = session->run(ExecutionPlan{}, 0);
  ASSERT_EQ(reference.end, ExecutionResult::End::Complete);
  size_t load = nth(reference, OpKind::AtomicLoad, 1);
  ASSERT_LT(load, reference.events.size());
  ExecutionResult r = session->run(plan_to(reference, load, choice(shm::ChoiceKind::ReadFrom, 0)), 1);
  EXPECT_EQ(r.end, ExecutionResult::End::Complete) << r.kind_name() << ": " << r.message;
  EXPECT_EQ(r.events[load].value_read, 42u);
  size_t store = nth(reference, OpKind::AtomicStore, 0);
  EXPECT_EQ(r.events[store].aux, 0u);  // not logged under SC
}

// A fetch-add and a compare-exchange (c11_rmw_choice): x = 1, y = 0; the
// worker adds 5 to x and exchanges y from 0 to 7; main then loads x, y and
// the compare-exchange's `expected`.
class C11AgentRmw : public ::testing::Test {
 protected:
  void SetUp() override {
    session_ = start("c11_rmw_choice", shm::MemoryModel::RC11);
    reference_ = session_->run(ExecutionPlan{}, 0);
    ASSERT_EQ(reference_.end, ExecutionResult::End::Complete) << reference_.kind_name() << ": " << reference_.message;
    ASSERT_EQ(reference_.exit_status, 0);
    rmw_ = nth(reference_, OpKind::AtomicRmw);
    cas_ = nth(reference_, OpKind::AtomicCas);
    ASSERT_LT(cas_, reference_.events.size());
  }
  // Main's final loads of x, y and expected.
  std::vector<uint64_t> final_loads(const ExecutionResult& r) {
    std::vector<uint64_t> v;
    for (int n = 0; n < 3; ++n) {
      size_t k = nth(r, OpKind::AtomicLoad, n);
      v.push_back(k < r.events.size() ? r.events[k].value_read : UINT64_MAX);
    }
    return v;
  }
  std::unique_ptr<Session> session_;
  ExecutionResult reference_;
  size_t rmw_ = 0, cas_ = 0;
};

TEST_F(C11AgentRmw, DefaultIsPlain) {
  EXPECT_EQ(reference_.events[rmw_].value_read, 1u);
  EXPECT_EQ(reference_.events[rmw_].value_written, 6u);
  EXPECT_EQ(reference_.events[cas_].value_read, 0u);
  EXPECT_FALSE(reference_.events[cas_].flags & shm::kFailed);
  EXPECT_EQ(final_loads(reference_), (std::vector<uint64_t>{6, 7, 0}));
  // The store of `expected` logs what expected_seen held before it.
  size_t store = nth(reference_, OpKind::AtomicStore);
  ASSERT_LT(store, reference_.events.size());
  EXPECT_EQ(reference_.events[store].value_written, 0u);
  EXPECT_EQ(reference_.events[store].aux, 5u);
}

TEST_F(C11AgentRmw, FetchAddComputesFromTheValueRead) {
  ExecutionResult r = session_->run(plan_to(reference_, rmw_, choice(shm::ChoiceKind::ReadFrom, 3)), 1);
  ASSERT_EQ(r.end, ExecutionResult::End::Complete) << r.message;
  EXPECT_EQ(r.events[rmw_].value_read, 3u);
  EXPECT_EQ(r.events[rmw_].value_written, 8u);
  EXPECT_EQ(final_loads(r), (std::vector<uint64_t>{8, 7, 0}));
  // Not mo-last: computed and logged, not written.
  r = session_->run(plan_to(reference_, rmw_, choice(shm::ChoiceKind::ReadFrom, 3, shm::kNotMoLast)), 2);
  EXPECT_EQ(r.events[rmw_].value_written, 8u);
  EXPECT_EQ(final_loads(r), (std::vector<uint64_t>{1, 7, 0}));
}

TEST_F(C11AgentRmw, CompareExchangeFailsOnAnotherValue) {
  // y read as 9: the exchange fails, writes nothing, `expected` becomes 9.
  ExecutionResult r = session_->run(plan_to(reference_, cas_, choice(shm::ChoiceKind::ReadFrom, 9)), 1);
  ASSERT_EQ(r.end, ExecutionResult::End::Complete) << r.message;
  EXPECT_TRUE(r.events[cas_].flags & shm::kFailed);
  EXPECT_EQ(r.events[cas_].value_read, 9u);
  EXPECT_EQ(final_loads(r), (std::vector<uint64_t>{6, 0, 9}));
  // Read as 0 (as expected) but not mo-last: succeeds without writing.
  r = session_->run(plan_to(reference_, cas_, choice(shm::ChoiceKind::ReadFrom, 0, shm::kNotMoLast)), 2);
  EXPECT_FALSE(r.events[cas_].flags & shm::kFailed);
  EXPECT_EQ(r.events[cas_].value_written, 7u);
  EXPECT_EQ(final_loads(r), (std::vector<uint64_t>{6, 0, 0}));
}

// 16-byte atomics: unsupported under c11/rc11 (the execution ends with a
// message saying so), run as usual under SC.
TEST(C11AgentWide, SixteenBytesAreUnsupported) {
  auto c11 = start("c11_wide_atomic", shm::MemoryModel::C11);
  ExecutionResult r = c11->run(ExecutionPlan{}, 0);
  EXPECT_EQ(r.end, ExecutionResult::End::Unsupported) << r.kind_name() << ": " << r.message;
  EXPECT_NE(r.message.find("1, 2, 4 or 8 bytes"), std::string::npos) << r.message;
  auto sc = start("c11_wide_atomic", shm::MemoryModel::SC);
  r = sc->run(ExecutionPlan{}, 0);
  EXPECT_EQ(r.end, ExecutionResult::End::Complete) << r.kind_name() << ": " << r.message;
}

}  // namespace
}  // namespace ctrl
