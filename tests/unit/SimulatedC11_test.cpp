// The C11 litmus simulator (SimulatedC11.h) on plans written by hand: the
// event log of the generated program, and each kind of shm::Choice applied
// as protocol/SharedRegion.h says, so that GraphStrategy's tests rest on a
// simulator that is itself checked.
#include "SimulatedC11.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "C11Litmus.h"
#include "C11Model.h"

using namespace ctrl;
using namespace ctrl::c11sim;

namespace {

c11litmus::Test litmus(const std::string& text) { return c11litmus::parse_litmus("inline.litmus", text); }

const c11litmus::Test kMpRlx = litmus(
    "NAME: MP+rlx\n"
    "THREAD 0: store x 1 rlx; store y 1 rlx\n"
    "THREAD 1: load r0 y rlx; load r1 x rlx\n");

// "thread:kind" per event, with aux for creates and joins.
std::vector<std::string> log_of(const Execution& r) {
  std::vector<std::string> out;
  for (const shm::Event& e : r.events) {
    std::string s = std::to_string(e.thread) + ":" + op_name(OpKind(e.kind));
    if (OpKind(e.kind) == OpKind::ThreadCreate || OpKind(e.kind) == OpKind::ThreadJoin)
      s += " " + std::to_string(e.aux);
    out.push_back(s);
  }
  return out;
}

shm::Choice read_from(uint32_t from, uint64_t value) {
  return shm::Choice{shm::ChoiceKind::ReadFrom, 0, 0, from, value};
}
shm::Choice not_mo_last() { return shm::Choice{shm::ChoiceKind::Default, shm::kNotMoLast, 0, 0, 0}; }

// A plan of `prefix`, with `choices` at the given steps.
ExecutionPlan plan_of(std::vector<uint32_t> prefix, std::vector<std::pair<size_t, shm::Choice>> choices = {}) {
  ExecutionPlan p;
  p.prefix = std::move(prefix);
  for (const auto& [step, c] : choices) {
    if (p.choices.size() <= step) p.choices.resize(step + 1, shm::Choice{});
    p.choices[step] = c;
  }
  return p;
}

TEST(SimulatedC11, StickyExecutionLogsWhatTheGeneratedProgramDoes) {
  Execution r = simulate(kMpRlx, ExecutionPlan{});
  EXPECT_FALSE(r.diverged);
  EXPECT_EQ(log_of(r), (std::vector<std::string>{"0:pthread_create 1", "0:pthread_create 2", "1:thread_start",
                                                 "1:atomic_store", "1:atomic_store", "1:thread_exit",
                                                 "0:pthread_join 1", "2:thread_start", "2:atomic_load", "2:atomic_load",
                                                 "2:thread_exit", "0:pthread_join 2", "0:exit"}));
  std::vector<uint64_t> enabled;
  for (const auto& e : r.events) enabled.push_back(e.enabled);
  EXPECT_EQ(enabled, (std::vector<uint64_t>{0b1, 0b11, 0b110, 0b110, 0b110, 0b110, 0b101, 0b100, 0b100, 0b100, 0b100,
                                            0b1, 0b1}));
  for (size_t k = 0; k < r.events.size(); ++k) EXPECT_EQ(r.events[k].step, k);
  const shm::Event& store_x = r.events[3];
  EXPECT_EQ(store_x.addr, address_of(kMpRlx, "x"));
  EXPECT_EQ(store_x.addr, kLocationBase);
  EXPECT_EQ(store_x.size, 8u);
  EXPECT_EQ(store_x.value_written, 1u);
  EXPECT_EQ(store_x.aux, 0u);  // what memory held before
  EXPECT_EQ(MemOrder(store_x.order), MemOrder::Relaxed);
  EXPECT_EQ(r.events[8].addr, address_of(kMpRlx, "y"));
  EXPECT_EQ(r.events[8].value_read, 1u);
  EXPECT_NE(r.events[3].site, r.events[4].site);
  EXPECT_EQ(r.events[2].site, r.events[5].site);  // start and exit: the start routine
  EXPECT_EQ(r.outcome, "r0=1 r1=1");
}

TEST(SimulatedC11, ReadFromMakesALoadReturnTheChosenValue) {
  // The writer first, then the reader sees the flag but reads x's initial 0.
  ExecutionPlan p = plan_of({0, 0, 1, 1, 1, 1, 0, 2, 2, 2}, {{9, read_from(shm::kFromInit, 0)}});
  Execution r = simulate(kMpRlx, p);
  EXPECT_FALSE(r.diverged);
  ASSERT_EQ(r.events.size(), 13u);
  EXPECT_EQ(OpKind(r.events[9].kind), OpKind::AtomicLoad);
  EXPECT_EQ(r.events[9].value_read, 0u);
  EXPECT_EQ(r.events[8].value_read, 1u);  // Default: memory
  EXPECT_EQ(r.outcome, "r0=1 r1=0");
  // The same plan without the choice reads memory.
  p.choices.clear();
  EXPECT_EQ(simulate(kMpRlx, p).outcome, "r0=1 r1=1");
}

TEST(SimulatedC11, ReadsFromThatBreakTheChoiceContractAreRecorded) {
  // Step 9 is thread 2's load of x; step 3 thread 1's store of 1 to x, step 4 its store to y.
  std::vector<uint32_t> prefix = {0, 0, 1, 1, 1, 1, 0, 2, 2, 2};
  EXPECT_TRUE(simulate(kMpRlx, plan_of(prefix, {{9, read_from(3, 1)}})).bad_reads_from.empty());
  EXPECT_TRUE(simulate(kMpRlx, plan_of(prefix, {{9, read_from(shm::kFromInit, 0)}})).bad_reads_from.empty());
  for (const shm::Choice& bad :
       {read_from(shm::kFromInit, 5), read_from(3, 2), read_from(4, 1), read_from(10, 1), read_from(2, 1)}) {
    Execution r = simulate(kMpRlx, plan_of(prefix, {{9, bad}}));
    ASSERT_EQ(r.bad_reads_from.size(), 1u) << bad.from << " " << bad.value;
    EXPECT_NE(r.bad_reads_from[0].find("step 9 (T2 atomic_load)"), std::string::npos) << r.bad_reads_from[0];
  }
}

TEST(SimulatedC11, PromiseReturnsItsValueLikeReadFrom) {
  c11litmus::Test lb = litmus(
      "NAME: LB\n"
      "THREAD 0: load r0 x rlx; store y 1 rlx\n"
      "THREAD 1: load r1 y rlx; store x 1 rlx\n");
  // T1 reads x = 1, promised by thread 2, which then keeps the promise.
  ExecutionPlan p = plan_of({0, 0, 1, 1}, {{3, shm::Choice{shm::ChoiceKind::Promise, 0, 0, 2, 1}}});
  Execution r = simulate(lb, p);
  EXPECT_EQ(r.outcome, "r0=1 r1=1");
}

TEST(SimulatedC11, NotMoLastLogsTheStoreButKeepsMemory) {
  c11litmus::Test ww = litmus(
      "NAME: 2W\n"
      "THREAD 0: store x 1 rlx\n"
      "THREAD 1: store x 2 rlx\n");
  // Sticky: T1 stores 1, T2 stores 2 placed before it in mo.
  ExecutionPlan p = plan_of({0, 0, 1, 1, 1, 0, 2, 2}, {{7, not_mo_last()}});
  Execution r = simulate(ww, p);
  EXPECT_EQ(log_of(r),
            (std::vector<std::string>{"0:pthread_create 1", "0:pthread_create 2", "1:thread_start", "1:atomic_store",
                                      "1:thread_exit", "0:pthread_join 1", "2:thread_start", "2:atomic_store",
                                      "2:thread_exit", "0:pthread_join 2", "0:atomic_load", "0:exit"}));
  EXPECT_EQ(r.events[7].value_written, 2u);
  EXPECT_EQ(r.events[7].aux, 1u);
  // main's final relaxed load reads memory: the mo-last store's 1.
  EXPECT_EQ(r.events[10].value_read, 1u);
  EXPECT_EQ(MemOrder(r.events[10].order), MemOrder::Relaxed);
  EXPECT_EQ(r.outcome, "x=1");
  EXPECT_EQ(simulate(ww, plan_of({0, 0, 1, 1, 1, 0, 2, 2})).outcome, "x=2");
}

TEST(SimulatedC11, MainsFinalLoadFollowsItsChoice) {
  c11litmus::Test ww = litmus(
      "NAME: 2W\n"
      "THREAD 0: store x 1 rlx\n"
      "THREAD 1: store x 2 rlx\n");
  std::vector<uint32_t> all(11, 0);
  for (size_t k : {2, 3, 4}) all[k] = 1;
  for (size_t k : {6, 7, 8}) all[k] = 2;
  Execution r = simulate(ww, plan_of(all, {{10, read_from(3, 1)}}));
  EXPECT_EQ(OpKind(r.events[10].kind), OpKind::AtomicLoad);
  EXPECT_EQ(r.outcome, "x=1");
}

TEST(SimulatedC11, CasSucceedsOrFailsOnTheValueItIsGiven) {
  c11litmus::Test cas = litmus(
      "NAME: CAS2\n"
      "THREAD 0: cas r0 x 0 1 acq_rel acq\n"
      "THREAD 1: cas r1 x 0 2 acq_rel acq\n");
  Execution sticky = simulate(cas, ExecutionPlan{});
  EXPECT_EQ(sticky.outcome, "r0=0 r1=1 x=1");
  const shm::Event& ok = sticky.events[3];
  ASSERT_EQ(OpKind(ok.kind), OpKind::AtomicCas);
  EXPECT_EQ(ok.flags & shm::kFailed, 0);
  EXPECT_EQ(ok.value_written, 1u);
  EXPECT_EQ(MemOrder(ok.order), MemOrder::AcqRel);
  const shm::Event& failed = sticky.events[7];
  ASSERT_EQ(OpKind(failed.kind), OpKind::AtomicCas);
  EXPECT_EQ(failed.flags & shm::kFailed, shm::kFailed);
  EXPECT_EQ(failed.value_read, 1u);
  EXPECT_EQ(failed.value_written, 2u);  // what it would have written
  EXPECT_EQ(failed.aux, 0u);  // expected
  EXPECT_EQ(ok.aux, 0u);
  Execution chain = simulate(litmus("NAME: CAS+chain\n"
                                    "THREAD 0: cas r0 x 5 1 rlx rlx\n"
                                    "THREAD 1: cas r1 x 1 2 rlx rlx\n"
                                    "INIT: x=5\n"),
                             ExecutionPlan{});
  EXPECT_EQ(chain.events[3].aux, 5u);
  EXPECT_EQ(chain.events[7].aux, 1u);
  EXPECT_EQ(chain.outcome, "r0=5 r1=1 x=2");
  EXPECT_EQ(MemOrder(failed.order), MemOrder::Acquire);  // the failure order
  // T1's CAS is made to read 5: it fails and leaves memory alone, so T2's succeeds.
  Execution r = simulate(cas, plan_of({0, 0, 1, 1}, {{3, read_from(7, 5)}}));
  EXPECT_EQ(r.events[3].flags & shm::kFailed, shm::kFailed);
  EXPECT_EQ(r.outcome, "r0=5 r1=0 x=2");
  // T2's CAS reads the initial 0, succeeds, and is placed before T1's in mo.
  Execution before =
      simulate(cas, plan_of({0, 0, 1, 1, 1, 0, 2, 2},
                            {{7, shm::Choice{shm::ChoiceKind::ReadFrom, shm::kNotMoLast, 0, shm::kFromInit, 0}}}));
  EXPECT_EQ(before.events[7].flags & shm::kFailed, 0);
  EXPECT_EQ(before.events[7].value_written, 2u);
  EXPECT_EQ(before.outcome, "r0=0 r1=0 x=1");
}

TEST(SimulatedC11, ReadModifyWritesComputeFromTheValueRead) {
  c11litmus::Test rmw = litmus(
      "NAME: RMW\n"
      "THREAD 0: fadd r0 x 10 rlx; xchg r1 y 7 rel\n"
      "THREAD 1: fadd r2 x 1 rlx; store y 3 rlx\n");
  Execution r =
      simulate(rmw, plan_of({0, 0, 1, 1}, {{3, shm::Choice{shm::ChoiceKind::ReadFrom, shm::kNotMoLast, 0, 9, 4}}}));
  const shm::Event& fadd = r.events[3];
  EXPECT_EQ(OpKind(fadd.kind), OpKind::AtomicRmw);
  EXPECT_EQ(RmwOp(fadd.rmw), RmwOp::Add);
  EXPECT_EQ(fadd.value_read, 4u);
  EXPECT_EQ(fadd.value_written, 14u);  // logged, not written
  EXPECT_EQ(fadd.aux, 10u);            // the operand
  const shm::Event& xchg = r.events[4];
  EXPECT_EQ(RmwOp(xchg.rmw), RmwOp::Xchg);
  EXPECT_EQ(xchg.value_read, 0u);
  EXPECT_EQ(xchg.value_written, 7u);
  EXPECT_EQ(xchg.aux, 7u);
  EXPECT_EQ(MemOrder(xchg.order), MemOrder::Release);
  // T2's fetch_add reads memory, untouched by T1's: 0.
  EXPECT_EQ(r.outcome, "r0=4 r1=0 r2=0 x=1 y=3");
}

TEST(SimulatedC11, ChoicesOfOtherKindsOfStepAreIgnored) {
  // A ReadFrom at a create, a start and an exit changes nothing.
  ExecutionPlan p = plan_of({0, 0, 1}, {{0, read_from(0, 9)}, {1, not_mo_last()}, {2, read_from(0, 9)}});
  Execution r = simulate(kMpRlx, p);
  EXPECT_EQ(log_of(r), log_of(simulate(kMpRlx, ExecutionPlan{})));
  EXPECT_EQ(r.outcome, "r0=1 r1=1");
}

TEST(SimulatedC11, FencesAndNonAtomicAccesses) {
  c11litmus::Test t = litmus(
      "NAME: MP+na+fences\n"
      "THREAD 0: store d 1 na; fence rel; store f 1 rlx; store d 2 na\n"
      "THREAD 1: load r0 f rlx; fence acq; load r1 d na\n");
  Execution r = simulate(t, ExecutionPlan{});
  ASSERT_EQ(r.events.size(), 16u);
  EXPECT_EQ(OpKind(r.events[3].kind), OpKind::AtomicStore);
  EXPECT_EQ(MemOrder(r.events[3].order), MemOrder::NotAtomic);
  EXPECT_EQ(OpKind(r.events[4].kind), OpKind::Fence);
  EXPECT_EQ(MemOrder(r.events[4].order), MemOrder::Release);
  EXPECT_EQ(r.events[4].addr, 0u);
  EXPECT_EQ(r.events[4].size, 0u);
  EXPECT_EQ(OpKind(r.events[12].kind), OpKind::AtomicLoad);
  EXPECT_EQ(MemOrder(r.events[12].order), MemOrder::NotAtomic);
  // d, written twice but non-atomic, is read by main with a plain access: no event.
  EXPECT_EQ(OpKind(r.events[15].kind), OpKind::ProcessExit);
  EXPECT_EQ(r.outcome, "r0=1 r1=2 d=2");
  // The na read made to read d's first store.
  Execution first =
      simulate(t, plan_of(std::vector<uint32_t>{0, 0, 1, 1, 1, 1, 1, 1, 0, 2, 2, 2, 2}, {{12, read_from(3, 1)}}));
  EXPECT_EQ(first.outcome, "r0=1 r1=1 d=2");
}

TEST(SimulatedC11, UninitialisedLocationReadsAsUndefined) {
  c11litmus::Test t = litmus(
      "NAME: UNINIT\n"
      "INIT: x=?\n"
      "THREAD 0: store x 1 rlx\n"
      "THREAD 1: load r0 x rlx\n");
  Execution sticky = simulate(t, ExecutionPlan{});
  EXPECT_EQ(sticky.events[3].aux, kGarbage);  // the store shows what it overwrote
  EXPECT_EQ(sticky.outcome, "r0=1");
  // The reader first.
  EXPECT_EQ(simulate(t, plan_of({0, 0, 2, 2})).outcome, "r0=?");
}

TEST(SimulatedC11, APlanThatChoosesABlockedThreadDiverges) {
  // Thread 0's first join cannot run before thread 1 exited. A failure is
  // expected: the simulator reports it so that a wrong plan cannot pass.
  ExecutionPlan p = plan_of({0, 0, 0});
  EXPECT_NONFATAL_FAILURE(
      {
        Execution r = simulate(kMpRlx, p);
        EXPECT_TRUE(r.diverged);
        EXPECT_FALSE(summary_of(r, 0).complete);
      },
      "cannot run");
}

// ---- the simulator against the enumerator under sc, on every test ----

// Every outcome of every interleaving of `t`'s operations, with Default
// choices (so under SC). Steps other than the test's operations commute
// with every other thread's, so they are taken without branching.
std::set<std::string> interleaving_outcomes(const c11litmus::Test& t) {
  std::set<std::string> outcomes;
  std::vector<std::string> names = t.outcome_names();
  std::function<void(Machine&, uint64_t)> go = [&](Machine& m, uint64_t step) {
    uint64_t mask = m.enabled_mask();
    if (!mask) {
      outcomes.insert(c11litmus::format_outcome(names, m.values()));
      return;
    }
    for (uint32_t u = 0; u < m.threads(); ++u) {
      if ((mask >> u & 1) && !m.at_operation(u)) {
        m.perform(u, step, mask, shm::Choice{});
        go(m, step + 1);
        return;
      }
    }
    for (uint32_t u = 0; u < m.threads(); ++u) {
      if (!(mask >> u & 1)) continue;
      Machine next = m;
      next.perform(u, step, mask, shm::Choice{});
      go(next, step + 1);
    }
  };
  Machine start(t);
  go(start, 0);
  return outcomes;
}

std::vector<std::string> litmus_files() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(CTRL_C11LITMUS_DIR))
    if (entry.path().extension() == ".litmus") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

class SimulatedC11Litmus : public testing::TestWithParam<std::string> {};

// The simulator's values, memory and outcome format are the enumerator's:
// its interleavings give exactly the sc outcomes.
TEST_P(SimulatedC11Litmus, InterleavingsGiveTheScOutcomes) {
  c11litmus::Test t = c11litmus::read_litmus(GetParam());
  EXPECT_EQ(interleaving_outcomes(t), c11litmus::enumerate(t, c11litmus::Model::SC).allowed) << t.name;
}

INSTANTIATE_TEST_SUITE_P(C11, SimulatedC11Litmus, testing::ValuesIn(litmus_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

TEST(SimulatedC11Litmus, TheSuiteIsThere) { EXPECT_GE(litmus_files().size(), 50u); }

}  // namespace
