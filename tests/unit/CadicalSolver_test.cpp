// The solver interface of --strategy sat (analyses/SatSolver.h) on
// CaDiCaL: the conflict budget the encoder's hard rounds rely on (a budget
// reached is Unknown, not Stopped and not an answer), and the failed
// assumptions that key its cache of refuted goals and its lemmas.
#include <gtest/gtest.h>

#include <vector>

#include "SatSolver.h"

namespace ctrl {
namespace {

// Pigeonhole: `holes` + 1 pigeons in `holes` holes, each pigeon somewhere,
// no two in one hole. Unsat, and hard for resolution.
void pigeonhole(SatSolver& s, int holes, int guard) {
  int pigeons = holes + 1;
  std::vector<std::vector<int>> p(pigeons, std::vector<int>(holes));
  for (auto& row : p)
    for (int& v : row) v = s.new_var();
  for (const auto& row : p) {
    std::vector<int> some{-guard};
    some.insert(some.end(), row.begin(), row.end());
    s.add_clause(some);
  }
  for (int h = 0; h < holes; ++h)
    for (int i = 0; i < pigeons; ++i)
      for (int j = i + 1; j < pigeons; ++j) s.add_clause(std::vector<int>{-p[i][h], -p[j][h]});
}

TEST(CadicalSolver, ConflictBudgetReachedIsUnknownAndTheNextCallHasNone) {
  auto s = make_cadical_solver();
  int guard = s->new_var();
  pigeonhole(*s, 6, guard);
  int assume[] = {guard};
  s->limit_conflicts(10);
  EXPECT_EQ(s->solve(assume, {}), SatSolver::Result::Unknown);
  // The budget was for that call only; nobody asked to stop.
  EXPECT_EQ(s->solve(assume, [] { return false; }), SatSolver::Result::Unsat);
}

TEST(CadicalSolver, FailedNamesTheAssumptionsTheRefutationUsed) {
  auto s = make_cadical_solver();
  int guard = s->new_var(), unrelated = s->new_var(), other = s->new_var();
  pigeonhole(*s, 3, guard);
  s->add_clause(std::vector<int>{unrelated, other});
  int assume[] = {guard, unrelated};
  ASSERT_EQ(s->solve(assume, {}), SatSolver::Result::Unsat);
  EXPECT_TRUE(s->failed(guard));
  EXPECT_FALSE(s->failed(unrelated));
  // Without the guard the pigeons may stay home.
  int without[] = {unrelated};
  EXPECT_EQ(s->solve(without, {}), SatSolver::Result::Sat);
}

}  // namespace
}  // namespace ctrl
