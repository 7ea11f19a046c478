// Partitioned source-DPOR (-j N): the exploration tree cut into work items,
// each explored by its own DporStrategy (its own analysis), taken by
// whichever worker is free. A work item is a branch of the tree: the thread
// taken at the state after a prefix of decisions, with that state's sleep
// set for it (DporStrategy::WorkItem, protocol/dpor_work.proto). The first
// item is the whole tree (from the fixed prefix); a worker with nothing to
// run steals the oldest open branch (the shallowest open state's least
// thread) of the oldest item that has one, which marks it done there.
//
// Invariants (what keeps the partition exact):
//  - Every state has one owner: the item whose root is the deepest at or
//    above it. A race whose first event lies above an item's root is sent to
//    the owner of that state (a request), which alone applies the source-set
//    rule there: a state gets each thread once, however many ask.
//  - An item never branches above the root of a subtree stolen from it that
//    is not finished (DporStrategy::next_partitioned's `keep`), so the state
//    a request or a stolen step names is still on its stack; a subtree is
//    finished when its item and every item stolen from it are.
//  - A state where a thread was stolen does not branch again (nor is stolen
//    from) before the stolen thread's step there is known (the thief's first
//    execution): its later siblings sleep it with that step, as with -j 1.
//  - So complete executions stay pairwise non-equivalent (sleep sets) and
//    every Mazurkiewicz class is reached (source sets, whatever the order a
//    state's branches run in): the complete executions are one per class, as
//    with one worker. Which thread a request adds and the sleep set a branch
//    starts with depend on the order races are found, so the number of
//    blocked executions (and which representative of a class runs) may
//    differ from one worker's.
//
// Thread-safe: one lock for the items, one per item for its strategy (taken
// in that order); the analysis of an execution holds only its item's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "DporStrategy.h"

namespace ctrl {

class DporPartition {
 public:
  using Factory = std::function<std::unique_ptr<DporStrategy>()>;
  // `fixed`: the exploration's fixed prefix (nothing is branched above it).
  DporPartition(Factory make, std::vector<uint32_t> fixed, size_t workers);

  struct Task {
    uint64_t item = 0;
    ExecutionPlan plan;
    bool first = false;  // the item's first execution
  };
  enum class Status { Run, Wait, Done };
  // A plan for `worker` to run (Run), nothing yet (Wait: other items still
  // run and may give work), or the exploration is over (Done). Never blocks.
  Status next(size_t worker, Task& task);
  // The result of a task run by `worker`.
  void completed(size_t worker, const Task& task, const ExecutionSummary& summary);
  // `worker` stops: the item bound to it is free for the others. (A task it
  // never completed is lost: only when the whole exploration stops.)
  void release(size_t worker);
  // `worker` takes over item `item`'s task in flight, whose worker stopped
  // without running it (released by neither); the item it was bound to is
  // free for the others.
  void adopt(size_t worker, uint64_t item);
  // No item left: every class explored.
  bool done() const;
  // Every item's own part explored, none running (items are finished only
  // when a worker asks for work: at the end of a run cut short, this says
  // whether anything was left).
  bool explored() const;
  // Alternatives fair scheduling of yields held back, over every item.
  uint64_t fairness_cuts() const;

  struct Stats {
    uint64_t items = 1;     // work items made (the first included)
    uint64_t steals = 0;    // items made by stealing
    uint64_t requests = 0;  // races sent to a state's owner
    uint64_t opened = 0;    // of which added a thread there
  };
  Stats stats() const;

 private:
  struct Item {
    uint64_t id = 0;
    std::unique_ptr<DporStrategy> strategy;
    std::mutex mutex;                      // the strategy's
    Item* parent = nullptr;                // the item it was stolen from
    uint64_t root = 0;                     // the state its thread is taken at (stolen items)
    uint64_t owns_from = 0;                // the states it owns begin here (its fixed prefix)
    std::multiset<uint64_t> stolen_roots;  // roots of its unfinished stolen subtrees
    int holder = -1;                       // the worker it is bound to
    bool started = false;
    bool stale = false;  // said Wait or Done and nothing changed since
  };
  uint64_t keep(const Item& it) const { return it.stolen_roots.empty() ? 0 : *it.stolen_roots.rbegin(); }
  // Tries `it` (lock held): true with a plan in `task`.
  bool try_item(size_t worker, Item& it, Task& task);
  void finish(Item& it);  // lock held
  void poke(Item& it) { it.stale = false; }

  Factory make_;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::unique_ptr<Item>> items_;  // alive, oldest first
  std::vector<Item*> current_;                       // per worker
  uint64_t next_id_ = 0;
  uint64_t fairness_cuts_ = 0;  // of the finished items
  Stats stats_;
};

}  // namespace ctrl
