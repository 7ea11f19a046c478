// Explorer from a fixed prefix on a real program (samples/deadlock_lock_order,
// run with the agent), on a session that has already run executions, as the
// debugger's `explore` uses it: the prefix decides which classes are left,
// execution numbers go on, and a saved trace holds the prefix.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/ExitStatus.h"
#include "exploration/Explorer.h"
#include "session/Session.h"
#include "reports/TraceFile.h"

using namespace ctrl;

namespace {

SessionConfig deadlock_config() {
  SessionConfig c;
  c.program = CTRL_TEST_SAMPLES_DIR "/deadlock_lock_order";
  c.agent = CTRL_TEST_AGENT;
  c.hang_timeout = 10;
  return c;
}

// The first `k` steps of `r` as a fixed prefix.
void take_prefix(const ExecutionResult& r, size_t k, ExploreOptions& o) {
  o.prefix.clear();
  o.prefix_signatures.clear();
  for (size_t i = 0; i < k; ++i) {
    const shm::Event& e = r.events[i];
    o.prefix.push_back(e.thread);
    o.prefix_signatures.push_back(shm::Signature{e.thread, e.kind, 0, e.site, e.addr});
  }
}

// The step at which thread `t` performs its `n`-th (from 1) operation of `kind`.
size_t step_of(const ExecutionResult& r, uint32_t t, OpKind kind, int n) {
  for (size_t i = 0; i < r.events.size(); ++i)
    if (r.events[i].thread == t && OpKind(r.events[i].kind) == kind && --n == 0) return i;
  ADD_FAILURE() << "no such step";
  return 0;
}

std::string fresh_dir(const std::string& name) {
  std::string dir = testing::TempDir() + "ctrl-explorer-prefix-" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

class ExplorerPrefix : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(session.start().has_value()) << "the sample creates threads";
    // The session's own first execution (sticky: T1 runs its section whole
    // once main waits in its join, then T2: no deadlock).
    first = session.run(ExecutionPlan{}, 0);
    ASSERT_EQ(first.end, ExecutionResult::End::Complete);
    options.session_started = true;
    options.first_execution = 1;
    options.keep_going = true;
  }
  Session session{deadlock_config()};
  ExecutionResult first;
  ExploreOptions options;
  proto::Trace trace_template;
};

// Without a prefix the exploration finds the deadlock (as `ctrl attach`).
TEST_F(ExplorerPrefix, NoPrefixFindsTheDeadlock) {
  options.trace_dir = fresh_dir("none");
  ExplorationReport r = Explorer(session, options, trace_template).run();
  EXPECT_TRUE(r.exhaustive);
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].result.kind, BugKind::Deadlock);
  EXPECT_GE(r.bugs[0].result.execution, 1u) << "numbers go on from the session's";
}

// T1 already holds both locks: no class with this prefix deadlocks, and
// the one way on is T1 finishing its section first: one execution.
TEST_F(ExplorerPrefix, AfterT1TookBothLocksThereIsNoDeadlock) {
  uint32_t t1 = first.events[step_of(first, 0, OpKind::ThreadCreate, 1)].aux;
  take_prefix(first, step_of(first, t1, OpKind::MutexLock, 2) + 1, options);
  options.trace_dir = fresh_dir("both");
  ExplorationReport r = Explorer(session, options, trace_template).run();
  EXPECT_TRUE(r.exhaustive);
  EXPECT_TRUE(r.bugs.empty());
  EXPECT_EQ(r.total, 1u);
}

// T1 took a, then T2 took b: every class with this prefix deadlocks. The
// trace holds the whole schedule from step 0, prefix included (shrinking
// kept it), under the next execution number.
TEST_F(ExplorerPrefix, AfterEachTookOneLockItDeadlocks) {
  uint32_t t1 = first.events[step_of(first, 0, OpKind::ThreadCreate, 1)].aux;
  uint32_t t2 = first.events[step_of(first, 0, OpKind::ThreadCreate, 2)].aux;
  // Up to T1's first lock, then T2 until it holds b.
  ExecutionPlan plan;
  for (size_t i = 0; i <= step_of(first, t1, OpKind::MutexLock, 1); ++i) plan.prefix.push_back(first.events[i].thread);
  size_t k = plan.prefix.size();
  plan.prefix.push_back(t2);
  ExecutionResult probe = session.run(plan, 1);
  ASSERT_EQ(probe.end, ExecutionResult::End::Bug);
  take_prefix(probe, step_of(probe, t2, OpKind::MutexLock, 1) + 1, options);
  ASSERT_GT(options.prefix.size(), k);
  options.first_execution = 2;
  options.trace_dir = fresh_dir("each");
  ExplorationReport r = Explorer(session, options, trace_template).run();
  EXPECT_TRUE(r.exhaustive);
  EXPECT_EQ(r.total, 1u);
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].result.kind, BugKind::Deadlock);
  EXPECT_EQ(r.bugs[0].result.execution, 2u);
  // Named as the report numbers it: execution 3.
  EXPECT_NE(r.bugs[0].trace_path.find("exec3"), std::string::npos) << r.bugs[0].trace_path;
  proto::Trace saved = load_trace(r.bugs[0].trace_path);
  ASSERT_GE(size_t(saved.decisions_size()), options.prefix.size());
  for (size_t i = 0; i < options.prefix.size(); ++i) EXPECT_EQ(saved.decisions(int(i)), options.prefix[i]) << i;
  EXPECT_EQ(saved.execution(), 2u);
}

// The session outlives the exploration: its time limit ends with it.
TEST_F(ExplorerPrefix, TheTimeLimitEndsWithTheExploration) {
  options.time_limit = 1e-9;
  options.trace_dir = fresh_dir("time");
  ExplorationReport r = Explorer(session, options, trace_template).run();
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(session.should_stop());
  EXPECT_EQ(session.run(ExecutionPlan{}, 5).end, ExecutionResult::End::Complete);
}

// A prefix whose signatures do not match what the program does is an
// internal error, not an exploration of something else.
TEST_F(ExplorerPrefix, ADivergingPrefixIsAnInternalError) {
  take_prefix(first, 3, options);
  options.prefix_signatures[2].site ^= 1;
  options.trace_dir = fresh_dir("diverged");
  EXPECT_THROW(Explorer(session, options, trace_template).run(), InternalError);
}

}  // namespace
