// DporStrategy on simulated programs (SimulatedProgram.h): exact class
// counts and outcome coverage without running processes.
#include "DporStrategy.h"
#include "PreemptionBoundedStrategy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "SimulatedProgram.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

struct Result {
  uint64_t complete = 0, blocked = 0;
  std::set<std::vector<uint64_t>> outcomes;
  bool exhaustive = false;
  uint64_t deferred = 0, inferred = 0;  // optimal mode (DporStrategy's counters)
  std::map<Signature, uint64_t> classes;  // of the complete executions: how many in each
};

Result explore(const Program& p, bool optimal = false, uint64_t limit = 100000) {
  DporStrategy dpor(optimal);
  Result r;
  for (uint64_t i = 0; i < limit; ++i) {
    auto plan = dpor.next();
    if (!plan) break;
    Outcome o = simulate(p, *plan);
    dpor.completed(summary_of(o, i));
    if (o.blocked) {
      ++r.blocked;
    } else {
      ++r.complete;
      r.outcomes.insert(o.reads);
      ++r.classes[signature_of(p, o.events)];
    }
  }
  r.exhaustive = dpor.exhaustive();
  r.deferred = dpor.deferred_insertions();
  r.inferred = dpor.inferred_natures();
  return r;
}

// Every outcome any interleaving can give, by brute force.
std::set<std::vector<uint64_t>> all_outcomes(const Program& p) {
  std::set<std::vector<uint64_t>> seen;
  std::vector<uint32_t> prefix;
  // Depth-first over every choice: replay each prefix and extend by every
  // thread that can run there.
  std::function<void()> go = [&] {
    ExecutionPlan plan;
    plan.prefix = prefix;
    Outcome o = simulate(p, plan);
    if (o.events.size() == prefix.size()) {
      seen.insert(o.reads);
      return;
    }
    uint64_t mask = o.events[prefix.size()].enabled;
    for (uint32_t t = 0; t < 64; ++t) {
      if (!(mask >> t & 1)) continue;
      prefix.push_back(t);
      go();
      prefix.pop_back();
    }
  };
  go();
  return seen;
}

constexpr uint64_t X = 0x1000, Y = 0x2000, M = 0x3000;

TEST(DporStrategy, OneWriterAndNReadersGiveTwoToTheN) {
  for (int readers = 1; readers <= 6; ++readers) {
    Program p;
    p.threads.push_back({{OpKind::AtomicStore, X, 1}});
    for (int i = 0; i < readers; ++i) p.threads.push_back({{OpKind::AtomicLoad, X}});
    Result r = explore(p);
    EXPECT_EQ(r.complete, uint64_t(1) << readers) << readers << " readers";
    EXPECT_EQ(r.blocked, 0u);
    EXPECT_TRUE(r.exhaustive);
  }
}

TEST(DporStrategy, StoreBufferingHasThreeClasses) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  Result r = explore(p);
  EXPECT_EQ(r.complete, 3u);
  EXPECT_TRUE(r.exhaustive);
  EXPECT_EQ(r.outcomes, all_outcomes(p));
  EXPECT_EQ(r.outcomes.count({0, 0}), 0u) << "sequential consistency forbids both reading 0";
}

TEST(DporStrategy, IndependentThreadsNeedOneExecution) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, X}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, Y}});
  p.threads.push_back({{OpKind::AtomicLoad, M + 64}});
  Result r = explore(p);
  EXPECT_EQ(r.complete, 1u);
  EXPECT_TRUE(r.exhaustive);
}

TEST(DporStrategy, LockedCriticalSectionsInEveryOrder) {
  // Three threads each lock, increment, unlock: 3! orders of the sections.
  Program p;
  for (int t = 0; t < 3; ++t)
    p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  Result r = explore(p);
  EXPECT_EQ(r.complete, 6u);
  EXPECT_EQ(r.blocked, 0u);
  EXPECT_TRUE(r.exhaustive);
}

TEST(DporStrategy, LockedWriterReaderAndEmptySection) {
  // A critical section writing x, a reader of x, an empty critical section:
  // (section order) x (read before or after the write) = 4 classes.
  Program p;
  p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicStore, X, 1}, {OpKind::MutexUnlock, M}});
  p.threads.push_back({{OpKind::AtomicLoad, X}});
  p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::MutexUnlock, M}});
  for (bool optimal : {false, true}) {
    Result r = explore(p, optimal);
    EXPECT_EQ(r.complete, 4u) << (optimal ? "optimal" : "source");
    EXPECT_TRUE(r.exhaustive);
  }
}

TEST(DporStrategy, ReachesEveryOutcomeOfMixedPrograms) {
  // A few hand-made mixes of locks, loads, stores and read-modify-writes:
  // every outcome a brute-force search reaches, DPOR reaches too.
  std::vector<Program> programs(3);
  programs[0].threads = {{{OpKind::AtomicLoad, X}, {OpKind::AtomicStore, Y, 1}},
                         {{OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, X, 1}},
                         {{OpKind::AtomicRmw, X, 2}, {OpKind::AtomicLoad, Y}}};
  programs[1].threads = {{{OpKind::MutexLock, M}, {OpKind::AtomicLoad, X}, {OpKind::MutexUnlock, M}, {OpKind::AtomicStore, X, 5}},
                         {{OpKind::AtomicStore, X, 3}, {OpKind::MutexLock, M}, {OpKind::AtomicLoad, X}, {OpKind::MutexUnlock, M}}};
  programs[2].threads = {{{OpKind::AtomicRmw, X, 1}, {OpKind::AtomicRmw, Y, 1}},
                         {{OpKind::AtomicRmw, Y, 1}, {OpKind::AtomicRmw, X, 1}},
                         {{OpKind::AtomicLoad, X}, {OpKind::AtomicLoad, Y}}};
  for (size_t i = 0; i < programs.size(); ++i) {
    Result r = explore(programs[i]);
    EXPECT_TRUE(r.exhaustive) << "program " << i;
    EXPECT_EQ(r.outcomes, all_outcomes(programs[i])) << "program " << i;
  }
}

// Optimal-DPOR: the same classes, never a blocked execution.
TEST(OptimalDpor, SameCountsAndNoBlockedExecutions) {
  std::vector<Program> programs;
  for (int readers = 1; readers <= 5; ++readers) {
    Program p;
    p.threads.push_back({{OpKind::AtomicStore, X, 1}});
    for (int i = 0; i < readers; ++i) p.threads.push_back({{OpKind::AtomicLoad, X}});
    programs.push_back(p);
  }
  Program sb;
  sb.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  sb.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  programs.push_back(sb);
  Program locks;
  for (int t = 0; t < 3; ++t)
    locks.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  programs.push_back(locks);
  Program mix;
  mix.threads = {{{OpKind::AtomicLoad, X}, {OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, Y}},
                 {{OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, X, 1}},
                 {{OpKind::AtomicRmw, X, 2}, {OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, Y, 3}}};
  programs.push_back(mix);
  for (size_t i = 0; i < programs.size(); ++i) {
    Result source = explore(programs[i]);
    Result optimal = explore(programs[i], true);
    EXPECT_EQ(optimal.complete, source.complete) << "program " << i;
    EXPECT_EQ(optimal.blocked, 0u) << "program " << i;
    EXPECT_TRUE(optimal.exhaustive) << "program " << i;
    EXPECT_EQ(optimal.outcomes, all_outcomes(programs[i])) << "program " << i;
  }
}

std::string class_report(const Program& p, const Result& r);

// Read-modify-writes whose nature (read or write) depends on where they run:
// an exchange writing the value already there, a compare-exchange that
// fails, a fetch_add of 0. Class counts by brute force.
TEST(OptimalDpor, ReadModifyWritesThatMayOnlyRead) {
  std::vector<std::pair<std::string, Program>> cases;
  auto add = [&](std::string name, std::vector<std::vector<Op>> threads, std::map<uint64_t, uint64_t> init = {}) {
    Program p;
    p.threads = std::move(threads);
    p.init = std::move(init);
    cases.emplace_back(std::move(name), std::move(p));
  };
  const Op st2{OpKind::AtomicStore, X, 2}, ld{OpKind::AtomicLoad, X};
  add("exchange_store_two_readers", {{st2}, {xchg(X, 0)}, {ld}, {ld}});
  add("same_exchange_reader_writer", {{xchg(X, 0)}, {ld}, {{OpKind::AtomicStore, X, 1}}});
  add("exchange_pair_store", {{xchg(X, 1)}, {xchg(X, 1)}, {st2}});
  add("cas_store_readers", {{cas(X, 2, 1)}, {st2}, {ld}, {ld}});
  add("exchange_after_load", {{ld, xchg(X, 0)}, {st2}, {ld}});
  for (const auto& [name, p] : cases) {
    uint64_t classes = count_classes(p);
    for (bool optimal : {false, true}) {
      Result r = explore(p, optimal);
      EXPECT_EQ(r.complete, classes) << name << (optimal ? " optimal\n" : " source\n") << class_report(p, r);
      EXPECT_EQ(r.classes.size(), classes) << name;
      if (optimal) {
        EXPECT_EQ(r.blocked, 0u) << name;
      }
      EXPECT_TRUE(r.exhaustive) << name;
      EXPECT_EQ(r.outcomes, all_outcomes(p)) << name;
    }
  }
}

// A race reversal notdep(e_i, E).e_j takes in every event of the execution
// that does not happen after e_i, those after e_j included. With only the
// events between e_i and e_j, what is reversed depends on how the execution
// happened to be interleaved, and a sleeping thread independent of that
// shorter sequence pruned the reversal this program needs (71 of 72).
TEST(OptimalDpor, ReversalTakesInEventsAfterTheRace) {
  const uint64_t Z = X + 64;
  auto st = [](uint64_t a, uint64_t v) { return Op{OpKind::AtomicStore, a, v}; };
  auto ld = [](uint64_t a) { return Op{OpKind::AtomicLoad, a}; };
  Program p;
  p.threads = {{ld(Y), st(Y, 5)}, {st(X, 7), ld(Z)}, {ld(Y), ld(X), st(Z, 0)}, {st(Y, 2), ld(X)}};
  uint64_t classes = count_classes(p);
  EXPECT_EQ(classes, 72u);
  Result r = explore(p, true);
  EXPECT_EQ(r.complete, classes) << class_report(p, r);
  EXPECT_EQ(r.classes.size(), classes);
  EXPECT_EQ(r.blocked, 0u);
  EXPECT_TRUE(r.exhaustive);
}

// Small random programs like the process-level cross-check's
// (tests/crosscheck), checked against the brute-force count: both modes
// explore one complete execution per class, optimal with none blocked.
Program random_program(uint64_t seed, size_t budget) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x5bd1e995ull;
  auto below = [&](uint64_t n) {  // splitmix64: the same programs everywhere
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) % n;
  };
  const uint64_t vars[] = {X, Y, X + 64};
  Program p;
  p.instructions = seed % 2 == 0;
  size_t nthreads = 2 + below(3), nvars = 1 + below(3);
  bool mutex = below(4) == 0;
  for (size_t v = 0; v < nvars; ++v)
    if (below(3) == 0) p.init[vars[v]] = 1;
  for (size_t t = 0; t < nthreads; ++t) {
    std::vector<Op> ops;
    size_t n = std::min<size_t>(1 + below(3), budget - (nthreads - t - 1));
    budget -= n;
    bool locked = false;
    for (size_t i = 0; i < n; ++i) {
      if (mutex && !locked && below(3) == 0) {
        ops.push_back({OpKind::MutexLock, M});
        locked = true;
      }
      uint64_t x = vars[below(nvars)], k = below(100);
      if (k < 25)
        ops.push_back({OpKind::AtomicLoad, x});
      else if (k < 45)
        ops.push_back({OpKind::AtomicStore, x, below(3)});
      else if (k < 60)
        ops.push_back({OpKind::AtomicRmw, x, below(2)});
      else if (k < 80)
        ops.push_back(xchg(x, below(3)));
      else
        ops.push_back(cas(x, below(3), below(3)));
      if (locked && (i + 1 == n || below(2) == 0)) {
        ops.push_back({OpKind::MutexUnlock, M});
        locked = false;
      }
    }
    p.threads.push_back(std::move(ops));
  }
  return p;
}

std::string describe(const Program& p) {
  std::string s;
  for (size_t t = 0; t < p.threads.size(); ++t) {
    s += "T" + std::to_string(t) + ":";
    for (const Op& op : p.threads[t]) {
      std::string x = std::to_string(op.addr), v = std::to_string(op.value);
      switch (op.kind) {
        case OpKind::AtomicLoad: s += " ld(" + x + ")"; break;
        case OpKind::AtomicStore: s += " st(" + x + "," + v + ")"; break;
        case OpKind::AtomicRmw: s += (op.rmw == RmwOp::Xchg ? " xchg(" : " add(") + x + "," + v + ")"; break;
        case OpKind::AtomicCas: s += " cas(" + x + "," + std::to_string(op.expected) + "->" + v + ")"; break;
        case OpKind::MutexLock: s += " lock"; break;
        case OpKind::MutexUnlock: s += " unlock"; break;
        default: s += " ?"; break;
      }
    }
    s += "\n";
  }
  for (const auto& [x, v] : p.init) s += "init " + std::to_string(x) + "=" + std::to_string(v) + "\n";
  return s;
}

// The classes explored more than once, and one interleaving of each class
// not explored, for a failure message.
std::string class_report(const Program& p, const Result& r) {
  auto describe_run = [&](const std::vector<shm::Event>& events) {
    std::string s;
    for (const auto& e : events) {
      Access a = access_of(e);
      s += " T" + std::to_string(e.thread) + op_name(OpKind(e.kind)) + (a.write_size ? "[w]" : a.read_size ? "[r]" : "");
    }
    return s;
  };
  std::string out;
  for (const auto& [sig, run] : classes_of(p))
    if (!r.classes.count(sig)) out += "missing:" + describe_run(run) + "\n";
  for (const auto& [sig, n] : r.classes)
    if (n > 1) out += "explored " + std::to_string(n) + " times: a class\n";
  return out;
}

TEST(OptimalDpor, RandomProgramsOneExecutionPerClass) {
  // More or bigger programs for a longer run: seeds CTRL_DPOR_UNIT_FIRST to
  // CTRL_DPOR_UNIT_SEEDS, CTRL_DPOR_UNIT_EVENTS memory operations per program.
  uint64_t first = 1, seeds = 400, budget = 9;
  if (const char* env = getenv("CTRL_DPOR_UNIT_FIRST")) first = strtoull(env, nullptr, 10);
  if (const char* env = getenv("CTRL_DPOR_UNIT_SEEDS")) seeds = strtoull(env, nullptr, 10);
  if (const char* env = getenv("CTRL_DPOR_UNIT_EVENTS")) budget = strtoull(env, nullptr, 10);
  for (uint64_t seed = first; seed <= seeds; ++seed) {
    Program p = random_program(seed, budget);
    uint64_t classes = count_classes(p);
    Result optimal = explore(p, true);
    EXPECT_EQ(optimal.complete, classes) << "seed " << seed << "\n" << describe(p) << class_report(p, optimal);
    EXPECT_EQ(optimal.classes.size(), classes) << "seed " << seed;
    EXPECT_EQ(optimal.blocked, 0u) << "seed " << seed << "\n" << describe(p);
    EXPECT_TRUE(optimal.exhaustive);
    Result source = explore(p, false);
    EXPECT_EQ(source.complete, classes) << "source, seed " << seed << "\n" << describe(p);
    if (HasFailure()) break;
  }
}

// Schedules with at most `bound` preemptions, by brute force.
uint64_t schedules_within(const Program& p, uint32_t bound) {
  uint64_t count = 0;
  std::vector<uint32_t> prefix;
  std::function<void(uint32_t)> go = [&](uint32_t used) {
    ExecutionPlan plan;
    plan.prefix = prefix;
    Outcome o = simulate(p, plan);
    if (o.events.size() == prefix.size()) {
      ++count;
      return;
    }
    size_t k = prefix.size();
    uint64_t mask = o.events[k].enabled;
    for (uint32_t t = 0; t < 64; ++t) {
      if (!(mask >> t & 1)) continue;
      bool preempt = k > 0 && t != prefix[k - 1] && (mask >> prefix[k - 1] & 1);
      if (used + preempt > bound) continue;
      prefix.push_back(t);
      go(used + preempt);
      prefix.pop_back();
    }
  };
  go(0);
  return count;
}

TEST(PreemptionBounded, RunsEverySchedulePerBoundOnce) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}});
  p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  for (uint32_t bound = 0; bound <= 3; ++bound) {
    PreemptionBoundedStrategy strategy(bound);
    uint64_t runs = 0;
    while (auto plan = strategy.next()) {
      Outcome o = simulate(p, *plan);
      ExecutionSummary s;
      s.events = o.events.data();
      s.steps = o.events.size();
      s.complete = true;
      strategy.completed(s);
      ++runs;
    }
    uint64_t expected = 0;
    for (uint32_t b = 0; b <= bound; ++b) expected += schedules_within(p, b);
    EXPECT_EQ(runs, expected) << "bound " << bound;
    EXPECT_EQ(strategy.completed_bound(), int(bound));
  }
}

// Futex and kernel-wait dependence (Dependence.h): a futex wait reads its
// word and joins its queue; one that found another value only read it.
TEST(Dependence, FutexWaitsReadTheWordAndShareItsQueueWithWakes) {
  constexpr uint64_t W = 0x7000;
  Access wait = access_of(OpKind::FutexWait, W, 4, 0, false, 0, false);
  Access failed = access_of(OpKind::FutexWait, W, 4, 0, true, 0, false);
  Access wake = access_of(OpKind::FutexWake, W, 4, 0, false, 0, false);
  Access other_wake = access_of(OpKind::FutexWake, W + 4, 4, 0, false, 0, false);
  Access store = access_of(OpKind::Store, W, 4, 0, false, 0, true);
  Access load = access_of(OpKind::Load, W, 4, 0, false, 0, true);
  EXPECT_TRUE(conflicts(wait, wake));
  EXPECT_TRUE(conflicts(wake, wake));
  EXPECT_FALSE(conflicts(wait, other_wake));
  EXPECT_TRUE(conflicts(wait, store));
  EXPECT_FALSE(conflicts(wait, load));
  EXPECT_FALSE(conflicts(failed, wake));
  EXPECT_TRUE(conflicts(failed, store));
  Access requeue = access_of(OpKind::FutexRequeue, W + 4, 4, W, false, 0, false);
  EXPECT_TRUE(conflicts(requeue, wait));
  EXPECT_TRUE(conflicts(requeue, other_wake));
}

TEST(Dependence, SignalSendsMeetSignalWaitsNotDescriptorWaits) {
  Access send = access_of(OpKind::SignalSend, 10, 0, 0, false, 0, false);
  Access sigwait = access_of(OpKind::SignalWait, 0, 0, kSignalObject, false, 0, false);
  Access read = access_of(OpKind::FdWait, 5, 0, kIoObject, false, 0, false);
  Access write = access_of(OpKind::FdWait, 6, 0, kIoObject, false, 0, false);
  EXPECT_TRUE(conflicts(send, sigwait));
  EXPECT_FALSE(conflicts(send, read));
  EXPECT_TRUE(conflicts(read, write));
}

}  // namespace


namespace {

shm::Event event(uint32_t thread, OpKind kind, uint64_t enabled, uint64_t addr = 0, uint64_t aux = 0,
                 uint32_t size = 0) {
  shm::Event e{};
  e.thread = uint16_t(thread);
  e.kind = uint16_t(kind);
  e.addr = addr;
  e.aux = aux;
  e.size = size;
  e.enabled = enabled;
  return e;
}

}  // namespace

// main creates a thread and exits at once: the thread, which never got a
// turn, is tried before the exit.
TEST(DporStrategy, ExitRacesWithAThreadThatNeverRan) {
  DporStrategy dpor;
  ASSERT_TRUE(dpor.next());
  std::vector<shm::Event> events = {event(0, OpKind::ThreadCreate, 0b1, 0, 1),
                                    event(0, OpKind::ProcessExit, 0b11)};
  std::vector<shm::Event> pending = {event(1, OpKind::ThreadStart, 0b10)};
  ExecutionSummary s;
  s.events = events.data();
  s.steps = events.size();
  s.complete = true;
  s.pending = pending.data();
  s.npending = pending.size();
  dpor.completed(s);
  auto plan = dpor.next();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->prefix, (std::vector<uint32_t>{0, 1}));
}

// A thread blocked when the process exits is not moved before the exit; its
// lock races with the acquisition that blocked it.
TEST(DporStrategy, BlockedAtExitRacesWithWhatBlockedIt) {
  DporStrategy dpor;
  ASSERT_TRUE(dpor.next());
  const uint64_t m = 0x1000;
  std::vector<shm::Event> events = {event(0, OpKind::ThreadCreate, 0b1, 0, 1), event(1, OpKind::ThreadStart, 0b11),
                                    event(0, OpKind::MutexLock, 0b11, m), event(0, OpKind::ProcessExit, 0b01)};
  std::vector<shm::Event> pending = {event(1, OpKind::MutexLock, 0, m)};
  ExecutionSummary s;
  s.events = events.data();
  s.steps = events.size();
  s.complete = true;
  s.pending = pending.data();
  s.npending = pending.size();
  dpor.completed(s);
  auto plan = dpor.next();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->prefix, (std::vector<uint32_t>{0, 1, 1}));
}

// A cut execution: the thread that never ran is tried before the looping
// thread's latest step.
TEST(DporStrategy, CutExecutionStillHasRacesToReverse) {
  DporStrategy dpor;
  ASSERT_TRUE(dpor.next());
  const uint64_t x = 0x2000;
  std::vector<shm::Event> events = {event(0, OpKind::ThreadCreate, 0b1, 0, 1),
                                    event(0, OpKind::ThreadCreate, 0b11, 0, 2),
                                    event(1, OpKind::ThreadStart, 0b110),
                                    event(1, OpKind::Load, 0b110, x, 0, 4),
                                    event(1, OpKind::Load, 0b110, x, 0, 4)};
  std::vector<shm::Event> pending = {event(0, OpKind::ThreadJoin, 0, 0, 1), event(1, OpKind::Load, 0b10, x, 0, 4),
                                     event(2, OpKind::ThreadStart, 0b100)};
  ExecutionSummary s;
  s.events = events.data();
  s.steps = events.size();
  s.pending = pending.data();
  s.npending = pending.size();
  dpor.completed(s);
  auto plan = dpor.next();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->prefix, (std::vector<uint32_t>{0, 0, 1, 1, 2}));
}

// Under TSO a thread whose next operation drains (a lock) cannot run at the
// exit until its buffer flushes: the flush, pending with no access, is
// tried before the exit (then the thread can go on before it).
TEST(DporStrategy, TsoExitRacesWithAPendingFlush) {
  DporStrategy dpor(false, model_analysis(shm::MemoryModel::TSO));
  ASSERT_TRUE(dpor.next());
  const uint64_t x = 0x3000, m = 0x4000;
  const uint32_t flusher = shm::kFlushActorBase + 1;
  shm::Event store = event(1, OpKind::Store, 0b11, x, 0, 4);
  store.flags = shm::kInstruction | shm::kBuffered;
  std::vector<shm::Event> events = {event(0, OpKind::ThreadCreate, 0b1, 0, 1), event(1, OpKind::ThreadStart, 0b11),
                                    store, event(0, OpKind::ProcessExit, 0b1 | uint64_t(1) << flusher)};
  std::vector<shm::Event> pending = {event(1, OpKind::MutexLock, 0, m),
                                     event(flusher, OpKind::Flush, uint64_t(1) << flusher)};
  ExecutionSummary s;
  s.events = events.data();
  s.steps = events.size();
  s.complete = true;
  s.pending = pending.data();
  s.npending = pending.size();
  dpor.completed(s);
  auto plan = dpor.next();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->prefix, (std::vector<uint32_t>{0, 1, 1, flusher}));
}
