// Checkpointed search on real samples with the real agent: a DPOR
// exploration that starts executions from live checkpoints (with the step
// threshold lowered to 1, so that short programs use them too) finds the
// same number of executions, the same verdict and the same bug schedules
// as one that runs every execution from the start.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "exploration/Explorer.h"
#include "sites/Instrumentation.h"
#include "session/Session.h"

using namespace ctrl;

namespace {

struct Case {
  const char* name;
  std::vector<std::string> args;
  shm::MemoryModel model = shm::MemoryModel::SC;
  uint64_t min_steps = 1;
  bool restores = true;  // some plan shares a step with an earlier one
  // The program changes files in its working directory (a fresh one): no
  // execution may start from a checkpoint, whose restore would not undo them.
  bool changes_files = false;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

ExplorationReport explore(const Case& c, bool checkpoints) {
  std::string program = std::string(CTRL_TEST_BIN_DIR) + "/" + c.name;
  Instrumentation instrumentation(program, InstrumentationOptions{});
  SessionConfig config;
  config.program = program;
  config.args = c.args;
  config.agent = CTRL_TEST_AGENT;
  config.model = c.model;
  config.sites_fd = instrumentation.fd();
  config.hang_timeout = 20;
  if (c.changes_files) {
    // Per case: ctest runs the cases of this suite side by side.
    config.cwd = testing::TempDir() + "ctrl-checkpointed-files-" + c.name + (checkpoints ? "-on" : "-off");
    std::filesystem::remove_all(config.cwd);
    std::filesystem::create_directories(config.cwd);
  }
  Session session(config);
  ExploreOptions o;
  o.keep_going = true;
  o.shrink = false;
  o.max_executions = 600;  // cond_prodcons has 89004: the first 600 of each
  o.checkpoints = checkpoints;
  o.checkpoint_min_steps = c.min_steps;
  o.trace_dir = testing::TempDir() + "ctrl-checkpointed-" + c.name + (checkpoints ? "-on" : "-off");
  std::filesystem::remove_all(o.trace_dir);
  return Explorer(session, o, proto::Trace{}).run();
}

class CheckpointedSearch : public testing::TestWithParam<Case> {};

TEST_P(CheckpointedSearch, SameClassesVerdictsAndSchedules) {
  ExplorationReport off = explore(GetParam(), false);
  ExplorationReport on = explore(GetParam(), true);
  EXPECT_EQ(off.restored, 0u);
  if (GetParam().changes_files) {
    EXPECT_EQ(on.restored, 0u) << "a restore after a file change";
  }
  if (GetParam().restores) {
    EXPECT_GT(on.restored, 0u) << "no execution started from a checkpoint";
  }
  EXPECT_EQ(on.total, off.total);
  EXPECT_EQ(on.complete, off.complete);
  EXPECT_EQ(on.blocked, off.blocked);
  EXPECT_EQ(on.bounded, off.bounded);
  EXPECT_EQ(on.exhaustive, off.exhaustive);
  ASSERT_EQ(on.bugs.size(), off.bugs.size());
  for (size_t i = 0; i < on.bugs.size(); ++i) {
    const ExecutionResult& a = on.bugs[i].result;
    const ExecutionResult& b = off.bugs[i].result;
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.execution, b.execution);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(on.bugs[i].occurrences, off.bugs[i].occurrences);
    // The whole schedule from step 0, as the saved trace holds it.
    ASSERT_EQ(a.events.size(), b.events.size());
    for (size_t k = 0; k < a.events.size(); ++k) {
      EXPECT_EQ(a.events[k].thread, b.events[k].thread) << "step " << k;
      EXPECT_EQ(a.events[k].kind, b.events[k].kind) << "step " << k;
      EXPECT_EQ(a.events[k].site, b.events[k].site) << "step " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, CheckpointedSearch,
                         testing::Values(Case{"long_prefix_race", {"1000"}, shm::MemoryModel::SC, 500},
                                         Case{"mutex_counter", {}},
                                         // No plan could start from a checkpoint (as measured): a check that
                                         // nothing changes when none is used.
                                         Case{"deadlock_lock_order", {}, shm::MemoryModel::SC, 1, false},
                                         Case{"cond_prodcons", {}}, Case{"lost_wakeup", {}},
                                         Case{"store_buffering", {"relaxed"}, shm::MemoryModel::TSO},
                                         Case{"dekker", {}, shm::MemoryModel::TSO},
                                         Case{"file_changes", {}, shm::MemoryModel::SC, 1, false, true},
                                         Case{"long_prefix_file", {}, shm::MemoryModel::SC, 500, false, true}),
                         [](const testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name) + (i.param.model == shm::MemoryModel::TSO ? "_tso" : "");
                         });

}  // namespace
