// Reads-from equivalence under sequential consistency and x86-TSO
// (--equivalence rf, issue 23): one complete execution per consistent (po, rf) pair, where DPOR
// (DporStrategy.h) runs one per Mazurkiewicz class. Two writes nobody reads
// between need not be run in both orders.
//
// The strategy learns the program from its executions and explores the rest
// in the controller. What a thread does next is a function of what it did
// and read so far (executions are deterministic given the schedule), so each
// thread's behaviour is a trie of its events: a node is a local history, its
// operation is what the thread does next, and its edges are keyed by the
// value that operation reads (0 when it reads nothing). The controller runs
// the same SC machine as the agent over that trie (memory per byte with the
// event that wrote it, mutex holders, created and exited threads) and
// enumerates its interleavings with sleep sets over the dependence of
// Dependence.h, which reaches every Mazurkiewicz class, hence every rf class.
// A complete interleaving is a class, named by its rf map (every read, lock
// and trylock with the write, unlock or initial value it reads per byte) and
// the number of memory and mutex events each thread ran (a thread start or
// exit the process exit cut short is not a class of its own). A step that
// touches nothing (start, creation, yield, fence) is explored alone where it
// can run (a persistent set of one). An execution runs only
//  * when the search reaches a state whose next operation, or the edge for
//    the value it would read, no execution has shown yet: the plan is the
//    state's schedule (then that thread's step), and the sticky tail; no
//    earlier execution contained that history step, so the class is new;
//  * for a complete interleaving whose class no execution has had yet: the
//    plan is its whole schedule.
// So every complete execution is a class not run before, and every class is
// run: the count of complete executions is the number of rf classes. The
// search itself costs in-controller work per Mazurkiewicz class (no
// execution), which is the price of this simple exactness argument: it is
// not the optimal algorithm of Abdulla et al. (OOPSLA 2019) that never
// enumerates them.
//
// What the machine knows: loads, stores and read-modify-writes of 1, 2, 4 or
// 8 bytes (instruction sites and libatomic calls), fences and yields, mutex
// lock, trylock and unlock, thread creation, start, exit, join and detach,
// and the process exit. Any other operation (condition variables, barriers,
// semaphores, rwlocks, futexes, kernel waits, string instructions) or a value
// the machine did not predict (memory written where ctrl does not see it)
// stops the exploration as unsupported (unsupported() says why; the search is
// then not exhaustive). Under TSO the machine has the agent's store buffers:
// a buffered store goes to its thread's FIFO, a read sees the thread's newest
// buffered bytes before memory (rf: that store), what drains waits for an
// empty buffer (DporEvents.h), and flush actor 32 + t commits the oldest
// entry; a flush conflicts with every access of its bytes. PSO is refused by
// the command line.
//
// Invariants: completed() is shown the execution of the plan next() returned
// last; `executed_` holds the class of every complete execution; a frame of
// the search is expanded only when every thread's next step is known.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "Strategy.h"

namespace ctrl {

// A map kept as one sorted vector: the search copies a state per step, and
// one allocation per copy is what makes that affordable.
template <class K, class V>
class FlatMap {
 public:
  using Item = std::pair<K, V>;
  using iterator = typename std::vector<Item>::iterator;
  using const_iterator = typename std::vector<Item>::const_iterator;
  const_iterator find(const K& k) const {
    auto it = lower(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t count(const K& k) const { return find(k) != end(); }
  V& operator[](const K& k) { return try_emplace(k).first->second; }
  template <class... A>
  std::pair<iterator, bool> try_emplace(const K& k, A&&... a) {
    auto it = items_.begin() + (lower(k) - items_.cbegin());
    if (it != items_.end() && it->first == k) return {it, false};
    return {items_.insert(it, Item(std::piecewise_construct, std::forward_as_tuple(k),
                                   std::forward_as_tuple(std::forward<A>(a)...))),
            true};
  }

 private:
  const_iterator lower(const K& k) const {
    return std::lower_bound(items_.begin(), items_.end(), k, [](const Item& i, const K& key) { return i.first < key; });
  }
  std::vector<Item> items_;
};

class ReadsFromStrategy final : public Strategy {
 public:
  // `tso`: x86-TSO (a FIFO store buffer per thread, its flush actor 32 + t).
  explicit ReadsFromStrategy(bool tso = false);
  std::string name() const override { return "dpor-rf"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& s) override;
  bool exhaustive() const override;
  std::optional<ModelCounts> model_counts() const override;
  // Why the exploration stopped short (empty: it did not).
  const std::string& unsupported() const { return unsupported_; }

  // Trie of one thread's behaviour (see above).
  struct Node {
    bool known = false;
    shm::Event op{};                    // the operation, as first seen
    std::map<uint64_t, uint32_t> edge;  // key -> index into edges_
  };
  struct Edge {
    shm::Event ev{};       // the event as it ran with this key
    uint32_t child = 0;    // the thread's next node
    uint32_t created = 0;  // ThreadCreate: the child thread's root node
  };
  // The machine's state after a schedule.
  struct ThreadState {
    uint32_t node = UINT32_MAX;  // UINT32_MAX: not created
    uint32_t count = 0;          // events run
    uint32_t visible = 0;        // of them, memory accesses and mutex operations
    bool exited = false;
  };
  struct State {
    std::vector<ThreadState> threads;
    FlatMap<uint64_t, std::pair<uint64_t, uint8_t>> mem;       // byte -> (writer, value)
    FlatMap<uint64_t, std::pair<uint32_t, uint64_t>> mutexes;  // addr -> (holder + 1, last writer)
    // TSO: per thread its buffered stores, oldest first.
    struct Buffered {
      uint64_t id, addr, value, step;
      uint32_t size;
    };
    std::vector<std::vector<Buffered>> buffers;
    uint64_t rf_hash = 0;
    bool ended = false;  // the process exited
    std::vector<uint32_t> schedule;
  };

 private:
  struct Step {
    uint32_t thread = 0;  // a flush actor: kFlushActorBase + thread
    uint32_t edge = 0;    // index into edges_ (a flush: none)
    shm::Event ev{};      // what it does (a flush: its bytes)
  };
  struct Frame {
    State s;
    std::vector<Step> sleep, done, todo;
    bool expanded = false;
    // Threads whose step an execution was asked to show (UINT32_MAX: the
    // class of this complete interleaving).
    std::vector<uint32_t> asked;
  };
  enum class Need { Expanded, Run, Done, Unsupported };

  uint32_t new_node();
  // The key of thread t's next operation `op` in s, or nothing when it reads
  // bytes whose initial value no execution showed.
  std::optional<uint64_t> key_of(const State& s, uint32_t t, const shm::Event& op) const;
  bool enabled(const State& s, uint32_t t, const shm::Event& op) const;
  // The byte at addr as thread t sees it: (writer, value), or nothing when
  // no execution showed its initial value. `from_memory`: not its buffer.
  std::optional<std::pair<uint64_t, uint8_t>> byte_seen(const State& s, uint32_t t, uint64_t addr,
                                                        bool* from_memory = nullptr) const;
  void flush(State& s, uint32_t t) const;
  // Applies edge `e` of thread t to s (the step's effects, rf included).
  void apply(State& s, uint32_t t, const Edge& e) const;
  uint64_t class_key(const State& s) const;
  // Fills f.todo (Expanded), or gives in `plan` the execution that shows a
  // missing step or runs a new class (Run), or finds the frame has nothing
  // left (Done: a class already run, all its steps asleep).
  Need expand(Frame& f, ExecutionPlan& plan);
  bool independent(const Step& a, const Step& b) const;
  void fail(std::string why);

  bool tso_ = false;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::map<uint64_t, uint8_t> init_;  // initial bytes seen
  std::vector<Frame> stack_;
  std::unordered_set<uint64_t> executed_;
  bool started_ = false;
  bool incomplete_ = false;  // a step could not be learnt (an execution cut or ended by a bug)
  std::string unsupported_;
  uint64_t redundant_ = 0;
};

}  // namespace ctrl
