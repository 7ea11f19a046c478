// protocol/BugKinds.def: the names traces and the JSON spell, and the
// properties the controller reads instead of comparing names.
#include <gtest/gtest.h>

#include "Bug.h"
#include "exploration/BugMonitor.h"

namespace ctrl {
namespace {

TEST(BugKind, NamesAreTheOnesTracesSpell) {
  // Saved traces and scripts read these names: they never change.
  const std::pair<BugKind, const char*> spelled[] = {
      {BugKind::Assertion, "assertion"},
      {BugKind::Crash, "crash"},
      {BugKind::Panic, "panic"},
      {BugKind::Sanitizer, "sanitizer"},
      {BugKind::ExitStatus, "exit-status"},
      {BugKind::Deadlock, "deadlock"},
      {BugKind::Hang, "hang"},
      {BugKind::DataRace, "data-race"},
      {BugKind::UninitializedLoad, "uninitialized-load"},
      {BugKind::TsoUnsafe, "tso-unsafe"},
  };
  for (auto [kind, name] : spelled) {
    EXPECT_EQ(bug_kind_name(kind), name);
    EXPECT_EQ(bug_kind_from_name(name), kind);
    EXPECT_FALSE(bug_kind_rule(kind).empty());
  }
  EXPECT_EQ(bug_kind_from_name(""), BugKind::None);
  EXPECT_EQ(bug_kind_from_name("kind-of-a-newer-ctrl"), std::nullopt);
}

TEST(BugKind, PropertiesReplaceNameComparisons) {
  EXPECT_TRUE(bug_is_stuck(BugKind::Deadlock));
  EXPECT_TRUE(bug_is_stuck(BugKind::Hang));
  EXPECT_FALSE(bug_is_stuck(BugKind::Assertion));
  // Not shrunk: the shrinker's runs would not get the monitor's verdict.
  EXPECT_TRUE(bug_is_verdict(BugKind::DataRace));
  EXPECT_TRUE(bug_is_verdict(BugKind::TsoUnsafe));
  EXPECT_FALSE(bug_is_verdict(BugKind::UninitializedLoad));
  EXPECT_TRUE(bug_has_signal(BugKind::Crash));
  EXPECT_FALSE(bug_has_signal(BugKind::Deadlock));
}

TEST(BugMonitor, AdoptedBugIsReportedAtItsLatestAccessWithTheEventsFacts) {
  ExecutionResult r;
  r.events.resize(3);
  r.events[0].thread = 1, r.events[0].site = 0x10, r.events[0].addr = 0x100;
  r.events[2].thread = 2, r.events[2].site = 0x20, r.events[2].addr = 0x100;
  Bug race;
  race.kind = BugKind::DataRace;
  race.message = "data race";
  race.facts.accesses = {BugAccess{.step = 0}, BugAccess{.step = 2}};
  adopt_bug(r, race);
  EXPECT_EQ(r.end, ExecutionResult::End::Bug);
  EXPECT_EQ(r.kind, BugKind::DataRace);
  EXPECT_EQ(r.thread, 2u);
  EXPECT_EQ(r.site, 0x20u);
  ASSERT_EQ(r.facts.accesses.size(), 2u);
  EXPECT_EQ(r.facts.accesses[0].thread, 1u);
  EXPECT_EQ(r.facts.accesses[0].addr, 0x100u);
  EXPECT_EQ(r.bug().kind, BugKind::DataRace);
}

}  // namespace
}  // namespace ctrl
