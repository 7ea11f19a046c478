// What a run may claim (controller/reports/Verdict.h) and --fail-on-exit's lists
// (controller/cli/FailOnExit.h).
#include "reports/Verdict.h"

#include <gtest/gtest.h>

#include "cli/ExitStatus.h"
#include "exploration/Explorer.h"
#include "cli/FailOnExit.h"
#include "reports/Report.h"

namespace ctrl {
namespace {

ExplorationReport run_of(uint64_t complete, uint64_t bounded, uint64_t blocked = 0) {
  ExplorationReport r;
  r.strategy = "dpor";
  r.complete = complete;
  r.bounded = bounded;
  r.blocked = blocked;
  r.total = complete + bounded + blocked;
  r.max_steps = 2000;
  r.visible = "all";
  return r;
}

TEST(Verdict, SomeCompleteExecutionChecksSomething) {
  auto r = run_of(3, 2);
  EXPECT_EQ(unchecked(r), Unchecked::None);
  EXPECT_FALSE(unchecked_by_limits(r));
  EXPECT_EQ(unchecked_summary(r), "");
}

TEST(Verdict, EveryExecutionCutChecksNothing) {
  auto r = run_of(0, 3, 1);
  EXPECT_EQ(unchecked(r), Unchecked::EveryCut);
  EXPECT_TRUE(unchecked_by_limits(r));
  std::string text = unchecked_summary(r);
  EXPECT_NE(text.find("every execution was cut by --max-steps 2000"), std::string::npos) << text;
  EXPECT_NE(text.find("try --visible atomics"), std::string::npos) << text;
  EXPECT_EQ(text.find("exhaustive"), std::string::npos) << text;
  r.visible = "atomics";
  text = unchecked_summary(r);
  EXPECT_EQ(text.find("--visible atomics"), std::string::npos) << text;
  EXPECT_NE(text.find("a larger --max-steps"), std::string::npos) << text;
  auto j = report_json(r, "/p", "sc");
  EXPECT_EQ(j["checked"], false);
  EXPECT_EQ(j["unchecked_reason"], "every-execution-cut");
}

TEST(Verdict, NoThreadIsLegitimateButNotExhaustive) {
  auto r = run_of(1, 0);
  r.no_thread = true;
  EXPECT_EQ(unchecked(r), Unchecked::NoThread);
  EXPECT_FALSE(unchecked_by_limits(r));  // exit 0
  std::string text = unchecked_summary(r);
  EXPECT_EQ(text.rfind("1 execution, 0 bugs: nothing to interleave: the program created no thread", 0), 0u) << text;
  EXPECT_EQ(text.find("exhaustive"), std::string::npos) << text;
  auto j = report_json(r, "/p", "sc");
  EXPECT_EQ(j["checked"], false);
  EXPECT_EQ(j["unchecked_reason"], "no-thread");
}

TEST(Verdict, NothingEndedAndBugs) {
  ExplorationReport none;
  EXPECT_EQ(unchecked(none), Unchecked::NothingEnded);
  EXPECT_TRUE(unchecked_by_limits(none));
  auto bug = run_of(1, 4);
  bug.bugs.push_back(FoundBug{});
  bug.no_thread = true;
  EXPECT_EQ(unchecked(bug), Unchecked::None);
  EXPECT_EQ(report_json(bug, "/p", "sc")["unchecked_reason"], nullptr);
}

TEST(FailOnExit, Lists) {
  EXPECT_TRUE(parse_fail_on_exit("").none());
  auto nonzero = parse_fail_on_exit("nonzero");
  EXPECT_FALSE(nonzero.test(0));
  EXPECT_TRUE(nonzero.test(1));
  EXPECT_TRUE(nonzero.test(255));
  auto some = parse_fail_on_exit("1,3-5,101");
  EXPECT_EQ(some.count(), 5u);
  for (int s : {1, 3, 4, 5, 101}) EXPECT_TRUE(some.test(size_t(s))) << s;
  EXPECT_FALSE(some.test(2));
  for (const char* bad : {"0", "256", "1,", ",1", "1,,2", "5-3", "a", "1-", "-1", "nonzero,1", " 1", "0001"})
    EXPECT_THROW(parse_fail_on_exit(bad), UsageError) << bad;
}

}  // namespace
}  // namespace ctrl
