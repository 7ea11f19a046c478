// The SAT solver behind --strategy sat (SatStrategy.h), kept behind this
// small interface so that the encoding does not depend on one library.
// Literals are DIMACS integers: variable v > 0 is the literal v, its
// negation -v. The solver is incremental: clauses added after a solve()
// keep what it learnt, and solve() takes assumptions that hold for that
// call only.
//
// Invariants: value() is defined only after solve() returned Sat and before
// the next add_clause(), failed() only after it returned Unsat; a variable
// never mentioned in a clause reads false.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

namespace ctrl {

class SatSolver {
 public:
  // Unknown: the conflict limit of limit_conflicts() was reached.
  enum class Result { Sat, Unsat, Stopped, Unknown };
  virtual ~SatSolver() = default;
  virtual int new_var() = 0;
  virtual void add_clause(std::span<const int> lits) = 0;
  // `stop` is polled while the solver searches (Ctrl-C, the time limit):
  // true ends the call with Stopped.
  virtual Result solve(std::span<const int> assumptions, const std::function<bool()>& stop) = 0;
  virtual bool value(int lit) = 0;
  // The next solve() gives up after n conflicts (Unknown): a budget for
  // calls that are worth trying only when cheap.
  virtual void limit_conflicts(int64_t n) = 0;
  // After Unsat: assumption `lit` was part of the refutation (an assumption
  // not failed could be dropped and the answer stay Unsat).
  virtual bool failed(int lit) = 0;
  virtual uint64_t vars() const = 0;
  virtual uint64_t clauses() const = 0;
};

// CaDiCaL (Debian's libcadical-dev), in process.
std::unique_ptr<SatSolver> make_cadical_solver();

}  // namespace ctrl
