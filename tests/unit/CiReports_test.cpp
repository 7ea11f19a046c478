// The pieces of the CI formats that need no program: XML escaping, the stop
// reason, the progress line.
#include <gtest/gtest.h>

#include "exploration/ProgressLine.h"
#include "reports/JunitReport.h"
#include "reports/StopReason.h"
#include "reports/XmlText.h"

namespace ctrl {
namespace {

TEST(JunitReport, EscapesMarkupAndControlCharacters) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_EQ(xml_escape(std::string("x\x01y\n")), "x\xEF\xBF\xBDy\n");
}

TEST(StopReason, CompleteOrWhichLimit) {
  ExplorationReport r;
  EXPECT_EQ(limit_keyword(r), "");
  r.bounded = 2;
  EXPECT_EQ(limit_keyword(r), "max-steps");
  r.interrupted = true;
  r.stopped_by = "the time limit";
  EXPECT_EQ(limit_keyword(r), "time-limit");
  r.stopped_at_max_executions = true;
  r.max_executions = 89;
  EXPECT_EQ(limit_keyword(r), "max-executions");
  EXPECT_EQ(stop_reason_text(r), "--max-executions 89 reached");
  ExplorationReport s;
  s.interrupted = true;
  s.stopped_by = "SIGINT";
  EXPECT_EQ(limit_keyword(s), "signal");
}

TEST(ProgressLine, SaysWhatIsKnownAboutTheRemainingWork) {
  ProgressFacts f{120, 118, 2, 0, 10.0, 1000, 60, 1};
  EXPECT_EQ(progress_line(f),
            "ctrl: progress: 120 executions (118 complete, 2 blocked), 0 bugs, 10.0 s elapsed; remaining: at most 880 "
            "executions (--max-executions), 50 s of --time-limit, every schedule with at most 1 preemption ran");
  ProgressFacts none{5, 5, 0, 1, 1.0, UINT64_MAX, 0, -1};
  EXPECT_NE(progress_line(none).find("1 bug, 1.0 s elapsed; remaining: unknown"), std::string::npos);
}

}  // namespace
}  // namespace ctrl
