// Exploration of release-acquire executions by weak trace (--model ra,
// issue 23), after TRACER (Abdulla, Atig, Jonsson, Ngo, OOPSLA 2018): one
// complete execution per RA-consistent weak trace, i.e. per program order
// plus reads-from (po, rf); the order of writes nobody reads is never a
// reason to run another execution.
//
// The paper's depth-first search (Algorithms 1-3), made stateless: each
// execution runs a plan (a prefix of decisions (thread, which write a read
// reads), then the sticky tail, in which every read reads memory, i.e. the
// latest write). From each finished execution:
//  * every read the tail ran (DFVISIT made it) becomes a node with the
//    other writes it may read (RaSaturation's readable set, computed before
//    it), each one a plan: the prefix up to the read, the read reading it;
//  * every write w, for every earlier swappable read r of its location not
//    hb-before it, gives r a schedule (DECLAREPOSTPONED): the events between
//    r and w that are hb-before w, then w, then r reading w. Schedules are
//    kept once per set of observations; the reads a schedule replays are
//    not swappable. Two changes to the printed algorithm, both found
//    necessary by the digest's brute-force tests (seed001_tracer.md, 3.6):
//    every eligible read gets a schedule (no `break` after the closest),
//    and the writes a schedule replays are declared too (here every write
//    of every execution is, and duplicates are dropped).
//  * a read-modify-write that could read what an earlier one read gives
//    that one a schedule in which it goes first (the extension to RMWs);
//    the one swapped behind stays swappable, with a node of its own, so a
//    later one can go before it too (without this, three fetch-adds ran 4
//    of their 6 orders). That node takes a write's schedule only when the
//    RMW it was swapped behind is hb-before the write (or, a RMW swap, the
//    write reads it): otherwise the read's original node schedules the same
//    write, and the swapped-ahead RMW, then run later, reads there what it
//    read here, the same weak trace (before this, `a x 1 | w x 2 | a x 1`
//    ran 7 executions for 6 weak traces). Known gap: with read-modify-writes
//    some plans are infeasible (wasted runs, no trace missed or repeated;
//    tests/crosscheck/ra_crosscheck.cmake).
// Nodes are a stack ordered by step: a node's alternatives run after every
// node below it in the tree is done, as in the recursive algorithm.
// A read the agent flags as a spin loop's iteration in the same state as the
// previous one (kSameState) is not offered the write that one read (GenMC's
// spin assumption, as GraphStrategy): rereading it changes nothing, and
// offering it made every execution of a spin one iteration longer, without
// end. So under a spin loop one execution per weak trace of the loop's
// effective iterations, not per count of idle ones.
//
// The tail's reads read memory, so a plan keeps out of memory (kNotMoLast)
// the writes that would leave there one some thread may not read
// (memory_below): at the tail's start each location holds a write no other
// write follows in (po ∪ rf ∪ co_x)+, which every thread may read, and the
// tail keeps it so. Should a read still break RA (read-modify-writes can),
// the execution is infeasible: counted, not reported, and its node explores
// the readable writes instead. Every complete consistent execution's weak
// trace is hashed: one seen twice is counted redundant (the optimality
// check).
//
// Invariants: completed() is shown the execution of the plan next() returned
// last; locked instructions and pthread calls read memory (they are not told
// what to read) and take part only through schedules.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Strategy.h"

namespace ctrl {

class WeakTraceExplorer;

class WeakTraceStrategy final : public Strategy {
 public:
  WeakTraceStrategy();
  ~WeakTraceStrategy() override;

  std::string name() const override { return "dpor"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  bool exhaustive() const override;
  bool last_feasible() const override;
  std::optional<ModelCounts> model_counts() const override;
  std::vector<ModelBug> last_model_bugs() const override;

 private:
  std::unique_ptr<WeakTraceExplorer> explorer_;
};

}  // namespace ctrl
