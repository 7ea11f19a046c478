// Brute-force axiomatic enumeration of a C11 litmus test's executions.
//
// Every candidate execution is built: which CAS succeed, a modification
// order (mo) per location (its initial store first, when it has one), and
// a reads-from (rf) source for every read among all stores to its location
// (the initial store included). Each candidate is checked against a model:
//
//   rc11  RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, PLDI 2017):
//         coherence (hb ; eco? irreflexive), atomicity (rmw ∩ (fr ; mo)
//         empty), SC (psc = psc_base ∪ psc_F acyclic) and no-thin-air
//         (po ∪ rf acyclic);
//   c11   the same without no-thin-air (load buffering allowed, as
//         CDSChecker's promises allow it);
//   sc    sequential consistency: po ∪ rf ∪ mo ∪ fr acyclic, and atomicity.
//
// Candidates are pruned only where every model agrees: an RMW reads from
// its immediate mo-predecessor (any other source violates atomicity or
// coherence in all three models).
//
// Invariant of a Result: `executions` counts distinct (rf, mo) pairs that
// are consistent (a CAS's success is a function of its rf source's value,
// so it adds no count of its own); the SC order psc is existential (some
// total order exists), never counted. A race or an uninitialised load in a
// consistent execution is recorded, not filtered out.
#ifndef CTRL_C11LITMUS_C11MODEL_H
#define CTRL_C11LITMUS_C11MODEL_H

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "C11Litmus.h"

namespace c11litmus {

struct Result {
  size_t candidates = 0;          // (rf, mo) pairs built
  size_t executions = 0;          // consistent ones
  std::set<std::string> allowed;  // format_outcome() of each consistent execution
  bool exists = false;            // the EXISTS condition holds in one
  bool race = false;              // one has two conflicting accesses, one non-atomic, unordered by hb
  bool uninit = false;            // in one, a read reads from a location's missing initial store
  std::string race_example;       // "t0:store x 1 na / t1:load r1 x na", for the first race found
};

Result enumerate(const Test& test, Model model);

}  // namespace c11litmus

#endif
