// Partitioned source-DPOR (DporPartition.h) on simulated programs
// (SimulatedProgram.h): several workers, interleaved at random, each step
// one worker asking for a plan or handing back the execution it ran, must
// run exactly one complete execution per Mazurkiewicz class, as one worker
// does, whatever the interleaving and the number of workers.
#include "DporPartition.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "SimulatedProgram.h"

using namespace ctrl;
using namespace ctrl::sim;

namespace {

constexpr uint64_t X = 0x1000, Y = 0x2000, Z = 0x2800, M = 0x3000;

struct Explored {
  uint64_t complete = 0, blocked = 0;
  std::map<Signature, uint64_t> classes;  // of the complete executions: how many in each
  DporPartition::Stats stats;
};

Explored explore_partitioned(const Program& p, size_t workers, uint64_t seed) {
  DporPartition partition([] { return std::make_unique<DporStrategy>(); }, {}, workers);
  struct Worker {
    std::optional<DporPartition::Task> task;
    Outcome outcome;
    bool done = false;
  };
  std::vector<Worker> w(workers);
  std::mt19937_64 rng(seed);
  Explored r;
  for (uint64_t steps = 0; steps < 1000000; ++steps) {
    size_t k = rng() % workers;
    if (w[k].task) {
      partition.completed(k, *w[k].task, summary_of(w[k].outcome, 0));
      if (w[k].outcome.blocked) {
        ++r.blocked;
      } else {
        ++r.complete;
        ++r.classes[signature_of(p, w[k].outcome.events)];
      }
      w[k].task.reset();
      continue;
    }
    DporPartition::Task task;
    auto status = partition.next(k, task);
    if (status == DporPartition::Status::Run) {
      w[k].outcome = simulate(p, task.plan);
      w[k].task = std::move(task);
    } else if (status == DporPartition::Status::Done) {
      w[k].done = true;
      bool all = true;
      for (const auto& x : w) all = all && x.done && !x.task;
      if (all) break;
    }
  }
  EXPECT_TRUE(partition.done());
  r.stats = partition.stats();
  return r;
}

void expect_one_per_class(const Program& p, const std::string& what) {
  uint64_t classes = count_classes(p);
  for (size_t workers : {1, 2, 3, 8}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      Explored r = explore_partitioned(p, workers, seed);
      EXPECT_EQ(r.complete, classes) << what << ", " << workers << " workers, seed " << seed;
      EXPECT_EQ(r.classes.size(), classes) << what << ", " << workers << " workers, seed " << seed;
      for (const auto& [sig, n] : r.classes)
        EXPECT_EQ(n, 1u) << what << ": a class run twice, " << workers << " workers, seed " << seed;
    }
  }
}

TEST(DporPartition, OneWriterAndReaders) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}});
  for (int i = 0; i < 4; ++i) p.threads.push_back({{OpKind::AtomicLoad, X}});
  expect_one_per_class(p, "writer and 4 readers");
}

TEST(DporPartition, LockedCriticalSections) {
  Program p;
  for (int t = 0; t < 4; ++t)
    p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  expect_one_per_class(p, "4 critical sections");
}

TEST(DporPartition, StoreBufferingAndIndependentWork) {
  Program p;
  p.threads.push_back({{OpKind::AtomicStore, X, 1}, {OpKind::AtomicLoad, Y}, {OpKind::AtomicStore, Z, 1}});
  p.threads.push_back({{OpKind::AtomicStore, Y, 1}, {OpKind::AtomicLoad, X}, {OpKind::AtomicLoad, Z}});
  p.threads.push_back({{OpKind::AtomicLoad, Z}, {OpKind::AtomicStore, X, 2}});
  expect_one_per_class(p, "store buffering and a third thread");
}

// Random programs: loads, stores, exchanges and compare-exchanges over
// three locations, and critical sections.
TEST(DporPartition, RandomProgramsMatchOneWorker) {
  std::mt19937_64 rng(2811);
  const uint64_t addrs[] = {X, Y, Z};
  for (int n = 0; n < 30; ++n) {
    Program p;
    size_t threads = 2 + rng() % 2;
    for (size_t t = 0; t < threads; ++t) {
      std::vector<Op> ops;
      size_t len = 1 + rng() % 4;
      for (size_t k = 0; k < len; ++k) {
        uint64_t a = addrs[rng() % 3];
        switch (rng() % 5) {
          case 0:
            ops.push_back({OpKind::AtomicLoad, a});
            break;
          case 1:
            ops.push_back({OpKind::AtomicStore, a, 1 + rng() % 2});
            break;
          case 2:
            ops.push_back(xchg(a, 1));
            break;
          case 3:
            ops.push_back(cas(a, 0, 1));
            break;
          default:
            ops.push_back({OpKind::MutexLock, M});
            ops.push_back({OpKind::AtomicRmw, a, 1});
            ops.push_back({OpKind::MutexUnlock, M});
        }
      }
      p.threads.push_back(std::move(ops));
    }
    expect_one_per_class(p, "random program " + std::to_string(n));
    if (HasFailure()) return;
  }
}

// Stealing happens (the test would prove nothing with one item).
TEST(DporPartition, WorkersSteal) {
  Program p;
  for (int t = 0; t < 4; ++t)
    p.threads.push_back({{OpKind::MutexLock, M}, {OpKind::AtomicRmw, X, 1}, {OpKind::MutexUnlock, M}});
  Explored r = explore_partitioned(p, 3, 1);
  EXPECT_GT(r.stats.steals, 0u);
  EXPECT_EQ(r.complete, 24u);
}

}  // namespace
