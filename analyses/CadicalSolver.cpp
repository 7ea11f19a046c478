// SatSolver on CaDiCaL 1.5's C++ API (cadical.hpp).
#include <algorithm>
#include <cadical.hpp>
#include <cstdint>

#include "SatSolver.h"

namespace ctrl {

namespace {

class StopCheck final : public CaDiCaL::Terminator {
 public:
  explicit StopCheck(const std::function<bool()>& stop) : stop_(stop) {}
  bool terminate() override { return fired = fired || (stop_ && stop_()); }
  bool fired = false;

 private:
  const std::function<bool()>& stop_;
};

class CadicalSolver final : public SatSolver {
 public:
  int new_var() override { return ++vars_; }
  void add_clause(std::span<const int> lits) override {
    for (int l : lits) solver_.add(l);
    solver_.add(0);
    ++clauses_;
  }
  Result solve(std::span<const int> assumptions, const std::function<bool()>& stop) override {
    for (int l : assumptions) solver_.assume(l);
    StopCheck check(stop);
    solver_.connect_terminator(&check);
    int r = solver_.solve();
    solver_.disconnect_terminator();
    if (r == 10) return Result::Sat;
    if (r == 20) return Result::Unsat;
    return check.fired ? Result::Stopped : Result::Unknown;
  }
  bool value(int lit) override {
    int v = lit < 0 ? -lit : lit;
    // CaDiCaL knows only the variables its clauses mention.
    if (v > solver_.vars()) return lit < 0;
    return solver_.val(lit) > 0;
  }
  void limit_conflicts(int64_t n) override { solver_.limit("conflicts", int(std::min<int64_t>(n, INT32_MAX))); }
  bool failed(int lit) override { return (lit < 0 ? -lit : lit) <= solver_.vars() && solver_.failed(lit); }
  uint64_t vars() const override { return uint64_t(vars_); }
  uint64_t clauses() const override { return clauses_; }

 private:
  CaDiCaL::Solver solver_;
  int vars_ = 0;
  uint64_t clauses_ = 0;
};

}  // namespace

std::unique_ptr<SatSolver> make_cadical_solver() { return std::make_unique<CadicalSolver>(); }

}  // namespace ctrl
