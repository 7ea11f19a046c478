// The explorer under --model c11 with a scripted strategy, on the real agent
// and samples/c11/c11_mp_relaxed: an execution the strategy calls infeasible
// is counted, never reported (no bug, no trace); a feasible one's bug is
// reported with a trace holding its plan's Choices, and replaying that trace
// puts them back (the same assertion).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "binary/ElfInspector.h"
#include "exploration/Explorer.h"
#include "exploration/Replayer.h"
#include "session/Session.h"
#include "reports/TraceFile.h"

namespace ctrl {
namespace {

// Plays `plans` in order; execution k is feasible iff feasible[k].
class Scripted final : public Strategy {
 public:
  Scripted(std::vector<ExecutionPlan> plans, std::vector<bool> feasible)
      : plans_(std::move(plans)), feasible_(std::move(feasible)) {}
  std::string name() const override { return "dpor"; }
  std::optional<ExecutionPlan> next() override {
    if (next_ >= plans_.size()) return std::nullopt;
    return plans_[next_++];
  }
  void completed(const ExecutionSummary&) override { ++shown_; }
  bool last_feasible() const override { return feasible_.at(shown_ - 1); }
  std::optional<ModelCounts> model_counts() const override { return ModelCounts{2, 1, 0}; }
  bool exhaustive() const override { return next_ >= plans_.size(); }

 private:
  std::vector<ExecutionPlan> plans_;
  std::vector<bool> feasible_;
  size_t next_ = 0, shown_ = 0;
};

SessionConfig c11_config(const std::string& program) {
  SessionConfig c;
  c.program = program;
  c.agent = CTRL_TEST_AGENT;
  c.model = shm::MemoryModel::C11;
  c.hang_timeout = 10;
  return c;
}

TEST(ExplorerModel, InfeasibleBugsAreCountedNotReported) {
  const std::string program = CTRL_TEST_SAMPLES_DIR "/c11_mp_relaxed";
  Session session(c11_config(program));
  ASSERT_FALSE(session.start().has_value());
  ExecutionResult first = session.run(ExecutionPlan{}, 0);
  ASSERT_EQ(first.end, ExecutionResult::End::Complete);
  // The reader's load of data (the second atomic load) reads 0: the assertion.
  size_t load = 0;
  for (int n = 0; load < first.events.size(); ++load)
    if (OpKind(first.events[load].kind) == OpKind::AtomicLoad && n++ == 1) break;
  ASSERT_LT(load, first.events.size());
  ExecutionPlan stale;
  for (size_t i = 0; i <= load; ++i) stale.prefix.push_back(first.events[i].thread);
  stale.choices.resize(load + 1);
  stale.choices[load].kind = shm::ChoiceKind::ReadFrom;
  stale.choices[load].from = shm::kFromInit;
  stale.choices[load].value = 0;

  ExploreOptions options;
  options.session_started = true;
  options.first_execution = 1;
  options.keep_going = true;
  options.trace_dir = testing::TempDir() + "ctrl-explorer-model";
  std::filesystem::remove_all(options.trace_dir);
  // Infeasible with the bug, then clean, then feasible with the bug.
  options.strategy_factory = [&] {
    return std::make_unique<Scripted>(std::vector<ExecutionPlan>{stale, ExecutionPlan{}, stale},
                                      std::vector<bool>{false, true, true});
  };
  proto::Trace trace_template;
  ProgramFacts facts = inspect_program(program);
  trace_template.mutable_program()->set_path(facts.path);
  trace_template.mutable_program()->set_size(facts.size);
  trace_template.mutable_program()->set_content_hash(facts.content_hash);
  trace_template.mutable_options()->set_model("c11");
  trace_template.mutable_options()->set_max_steps(10000);
  ExplorationReport report = Explorer(session, options, trace_template).run();

  EXPECT_EQ(report.total, 3u);
  EXPECT_EQ(report.infeasible, 1u);
  EXPECT_EQ(report.complete, 2u);
  ASSERT_TRUE(report.model_counts.has_value());
  EXPECT_EQ(report.model_counts->consistent, 2u);
  ASSERT_EQ(report.bugs.size(), 1u);
  const FoundBug& bug = report.bugs[0];
  EXPECT_EQ(bug.result.kind, BugKind::Assertion);
  EXPECT_EQ(bug.result.execution, 3u) << "the infeasible execution 1 was not reported";
  EXPECT_EQ(bug.occurrences, 1u);
  size_t traces = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(options.trace_dir)) ++traces;
  EXPECT_EQ(traces, 1u);

  // The trace holds the Choice, and replay reproduces the assertion with it.
  proto::Trace trace = load_trace(bug.trace_path);
  std::vector<shm::Choice> choices = trace_choices(trace);
  ASSERT_EQ(choices.size(), load + 1);
  EXPECT_EQ(choices[load].kind, shm::ChoiceKind::ReadFrom);
  EXPECT_EQ(choices[load].from, shm::kFromInit);
  Session again(replay_config(trace, CTRL_TEST_AGENT, false));
  ReplayOutcome out = replay(again, trace);
  EXPECT_TRUE(out.reproduced) << out.divergence;
  EXPECT_EQ(out.result.kind, BugKind::Assertion);
  std::filesystem::remove_all(options.trace_dir);
}

}  // namespace
}  // namespace ctrl
