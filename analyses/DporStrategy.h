// Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, POPL'14),
// run statelessly: every execution restarts from the checkpoint and replays
// a prefix of decisions, then the agent continues on its own (sticky policy,
// honouring the sleep set it was given).
//
// After each execution the strategy computes happens-before with vector
// clocks over the logged events (program order, creation -> start, and every
// pair of conflicting events in execution order; Dependence.h), finds the
// reversible races e_i < e_j (conflicting, different threads, no event
// hb-between them) and, for each, makes sure one of the initials of
// notdep(e_i).e_j is in the backtrack set of the state before e_i. The next
// execution branches at the deepest state with a backtrack thread that was
// neither tried there nor asleep.
//
// An execution that ends with threads parked at an operation they never ran
// (a process exit ends them, --max-steps cuts the execution) is analysed
// with each such operation as one more event at its end (ExecutionSummary::
// pending): a thread main never joined, or one that a cut kept from running,
// races like any other. A thread that never got its first turn may do
// anything first: its start conflicts with everything.
//
// Under TSO/PSO the dependence is that of chronological traces (Abdulla et
// al., TACAS'15): a flush is the store's write; a load forwarded whole from
// one of its thread's buffered stores has no conflict until that store's
// flush exposes it (then later flushes there conflict with it); a thread's
// reads never conflict with its own flushes (before or after one, it reads
// its own bytes), nor does a flush wake its own thread's sleeper or a
// sleeper about to load wholly from its buffer. So a trace with forwarding
// runs once.
//
// From a fixed prefix (Strategy::set_fixed_prefix, k decisions): the whole
// execution is analysed (the prefix's events order the rest through the
// vector clocks, and TSO flushes name their stores by step), but a race
// whose first event e_i is in the prefix is not reversed and no state before
// step k gets a backtrack thread or a wakeup tree: that is DPOR from the
// state after the prefix, so the complete executions are one per class
// among those that begin with the prefix.
//
// Invariants: the stack holds one Position per step of the latest execution;
// positions below the branch point are shared with every later execution;
// complete executions are pairwise non-equivalent (sleep sets), and every
// class is reached (source sets), so the count of complete executions is the
// number of Mazurkiewicz classes.
//
// Optimal mode (Optimal-DPOR, same paper and its JACM'17 version): after
// each execution E every race e_i < e_j of E, wherever it is, is reversed as
// the sequence notdep(e_i, E).e_j (every later event of E that does not
// happen after e_i, then e_j), inserted into the wakeup tree of the state
// before e_i unless a thread asleep there is a weak initial of it; branches
// of wakeup trees are forced whole, so no execution ends blocked. The
// dependence relation depends on values (Dependence.h: a read-modify-write
// that leaves memory unchanged only reads), so steps are judged on what they
// do where the sequence puts them (Step); an insertion that hinges on what a
// moved read-modify-write does there waits until an execution shows it.
// Only reversals that can run are inserted: not a wake-up before its signal;
// a re-read the agent would hold back as a spin (await) is replaced, as in
// source mode, by trying every thread that can run there.
#pragma once

#include <array>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "Dependence.h"
#include "DporEvents.h"
#include "ModelAnalysis.h"
#include "Strategy.h"

namespace ctrl {

class DporStrategy final : public Strategy {
 public:
  // `optimal`: Optimal-DPOR (wakeup trees instead of backtrack sets): never
  // starts a redundant execution, so no execution ends blocked.
  // `model`: the memory model whose dependence it explores (ModelAnalysis.h;
  // SC, TSO or PSO).
  explicit DporStrategy(bool optimal = false, const ModelAnalysis& model = model_analysis(shm::MemoryModel::SC))
      : optimal_(optimal), model_(model) {}
  std::string name() const override { return optimal_ ? "dpor-optimal" : "dpor"; }
  std::optional<ExecutionPlan> next() override;
  void completed(const ExecutionSummary& summary) override;
  bool exhaustive() const override { return exhausted_; }

  // Fair scheduling of yields (FairYields.h): the agent's tail never runs a
  // thread the rule holds back, and neither does a backtrack point. The
  // alternatives a race reversal wanted there and could not have (each
  // thread once per state): while none, the search is as exhaustive as
  // source-DPOR; otherwise only over fair schedules.
  uint64_t fairness_cuts() const override { return fairness_cuts_; }

  uint64_t races_found() const { return races_; }

  // --state/--resume (DporSavedState.cpp), source mode: the stack between
  // two executions (its open branches are the frontier); empty in optimal
  // mode or with a plan still running.
  std::vector<uint64_t> saved_state() const override;
  bool restore_state(uint64_t next, const std::vector<uint64_t>& state) override;

  // Partitioned exploration (DporPartition.h), source mode only. A work
  // item is the branch that takes thread `thread` at the state after
  // `prefix`, with that state's sleep set for it (the threads asleep there
  // and those tried there before, each with the step it takes: what wakes
  // it); the item's strategy explores exactly the subtree of that branch.
  struct WorkItem {
    std::vector<uint32_t> prefix;
    uint32_t thread = 0;
    uint64_t sleep_mask = 0;
    std::vector<std::pair<uint32_t, shm::SleeperAccess>> sleepers;
  };
  // A race whose reversal belongs to a state above this strategy's root:
  // the initials of notdep(e_i).e_j at state `state`, and e_j's thread
  // (preferred among them). Only that state's owner applies it.
  struct Request {
    uint64_t state = 0;
    uint64_t initials = 0;
    uint32_t thread = 0;
  };
  // Before the first next(): explore `item`'s subtree (its prefix and
  // thread become the fixed prefix; the first plan carries its sleep set),
  // handing races above it out as requests (take_requests).
  void start_item(const WorkItem& item);
  // Turns on the requests of races above the fixed prefix for the root
  // item (whose fixed prefix is the user's, nothing is asked above it).
  void collect_requests() { collect_requests_ = true; }
  std::vector<Request> take_requests() { return std::move(requests_); }
  // Applies a request from a subtree of state `r.state` (the source-set
  // rule: nothing when one initial is already in backtrack, else e_j's
  // thread or the least initial). True when it opened a new thread.
  bool apply_request(const Request& r);
  // What next_partitioned says.
  enum class Turn { Plan, Wait, Done };
  // next() for a partitioned item: the deepest open state, unless it lies
  // above `keep` (a stolen subtree below needs the states down to `keep`
  // kept: Wait) or waits for the step of a thread stolen there (Wait).
  // Done: nothing open (requests may open more later).
  Turn next_partitioned(ExecutionPlan& plan, uint64_t keep);
  // Steals the oldest open branch: the least open thread of the shallowest
  // open state not waiting for a stolen step, below the branch point of an
  // execution still running. Marks it done here; its step there is asked
  // for (record_stolen) before this state branches again.
  std::optional<WorkItem> steal();
  // Nothing open at or below the fixed prefix's end, and no execution
  // planned still running: this item's own part is explored.
  bool explored() const;
  // The step the stolen thread took at `state` (its item's first
  // execution's step there), for the sleep sets of its later siblings.
  void record_stolen(uint64_t state, const shm::Event& step);
  // Root of the latest plan's branch (tests).
  uint64_t branch_point() const { return branch_; }
  // Optimal mode: race reversals whose insertion had to wait for a later
  // execution to show what a read-modify-write does where it was moved, and
  // decisions about such a step taken without having seen it (tests).
  uint64_t deferred_insertions() const { return deferred_; }
  uint64_t inferred_natures() const { return inferred_; }

 private:
  struct Sleeper {
    uint32_t thread;
    Access next;         // what the thread does when it runs from this state
    shm::Event event{};  // that step as logged (the value it found there)
  };
  // Optimal mode: a step of a sequence to run from a state (a race reversal
  // being inserted, or a wakeup tree node).
  //
  // A read-modify-write only reads when it leaves memory as it was (a failed
  // compare-exchange, an exchange writing the value already there), so what
  // it does depends on the value it finds. Every step of a reversal
  // notdep(e_i).e_j finds the values it found in the execution it comes from,
  // except e_j when e_i wrote its bytes: it now runs before that write. If e_j
  // is such a read-modify-write, whether it writes there is decided by the
  // value it will find (`input`), and until that is known the step is
  // `unsure`. Weak initials must be judged on what each step really does
  // where it stands: taking e_j as a read or as a write when it is the other
  // misses classes (a wakeup tree branch made redundant absorbs later
  // reversals that its own subtree then prunes).
  struct Step {
    uint32_t thread = 0;
    Access access;             // what it does where it stands (as logged while unsure)
    shm::Event event{};        // as logged where it ran
    uint64_t history = 0;      // its thread's events before it (key of natures_)
    uint64_t index = 0;        // its step in that execution (a flush names its store's)
    int64_t flush_bound = -1;  // a flush: its store's sfence_before_
    bool unsure = false;
    bool has_input = false;
    uint64_t input = 0;  // memory at its bytes when it runs where it stands
  };
  struct Sequence {
    std::vector<Step> steps;  // from one execution, in its order
    std::vector<bool> gone;   // run earlier on the way through a tree
  };
  // A wakeup tree: sequences of steps still to run from a state, as a tree
  // (children in the order they will run).
  struct Node {
    Step step;
    std::vector<Node> children;
  };
  struct Position {
    shm::Event event{};          // what ran here in the latest execution
    uint64_t enabled = 0;        // threads enabled in this state
    uint64_t fair = 0;           // those fair scheduling of yields lets run (FairYields.h)
    uint64_t held_back = 0;      // threads a race reversal wanted here that fairness held back
    uint64_t backtrack = 0;      // threads to run here
    uint64_t done = 0;           // threads run here so far
    std::vector<Sleeper> sleep;  // sleep set of this state
    std::vector<Sleeper> tried;  // the step each done thread took here
    // Optimal mode: what is left to run from here, and whether this step
    // was dictated by a wakeup tree whose branch goes on below it.
    Node wakeup;
    bool forced = false;
    // Partitioned: threads stolen here whose step is not known yet.
    uint64_t awaiting = 0;
  };
  // Optimal mode: a race reversal to insert at stack_[at] once the natures
  // it depends on are known.
  struct Pending {
    uint64_t at;
    Sequence v;
  };
  enum class Answer { No, Yes, Unknown };
  using Clock = std::array<uint32_t, shm::kMaxThreads>;

  // An operation a thread was parked at when the execution ended (a process
  // exit, a cut), taken as event `index` (the end) of that execution.
  struct Virtual {
    shm::Event event;
    Access access;  // a thread that never got a turn: anything (everything)
    uint64_t index;
  };
  static uint64_t mask_of(const std::vector<Sleeper>& s);
  static void add_sleepers(ExecutionPlan& plan, const Position& pos, uint32_t chosen);
  // The plan that takes thread `q` at open position `i` (asleep: the
  // state's own sleepers); marks q done at `pos`.
  void branch_plan(ExecutionPlan& plan, uint64_t i, Position& pos, uint64_t asleep, uint32_t q) const;
  void analyse(const shm::Event* events, uint64_t n, uint64_t from, const shm::Event* pending, uint64_t npending);
  // `last`: e_j is that pending operation (j == its index).
  void add_backtrack(const shm::Event* events, uint64_t i, uint64_t j, const Virtual* last = nullptr);
  // Adds `threads` to stack_[i]'s backtrack set, the fair ones only;
  // counts the others as cut by fairness.
  void add_fair(uint64_t i, uint64_t threads);
  // The source-set rule at state i for the initials of a race (p: e_j's thread).
  bool add_initials(uint64_t i, uint64_t initials, uint32_t p);
  // The threads whose first event in v is not ordered after another event
  // of v (happens-before among the events of v alone: paths through events
  // left out of v do not count).
  uint64_t initials_of(const shm::Event* events, const std::vector<uint64_t>& v, const Virtual* last = nullptr) const;
  bool happens_before(uint64_t a, uint64_t b) const;
  int64_t flush_bound(const shm::Event& e) const;

  // Optimal mode.
  Step step_of(const shm::Event& e, const Access& a) const;
  void race_sequence(const shm::Event* events, uint64_t n, uint64_t i, uint64_t j, const Virtual* last = nullptr);
  // Whether e_j can run after notdep(e_i) in the state before e_i: yes,
  // never (a wake-up before its signal), or only if the agent probes a spin.
  enum class Move { Yes, Never, Await };
  Move movable(const shm::Event* events, uint64_t n, uint64_t i, uint64_t j) const;
  void try_every_thread(uint64_t i);
  // Inserts v into the wakeup trees below stack_[at] unless redundant; false
  // when that depends on a nature not known yet. `last`: nothing more will be
  // learnt before stack_[at] is left (unknown natures are inferred).
  bool insert(uint64_t at, Sequence v, bool last);
  Answer weak_initial(Step& step, Sequence& v, bool seen_all) const;
  Answer initial(Sequence& v, size_t b) const;
  Answer conflict(Step& a, Step& b, bool seen_all) const;
  Answer writes_at(const Step& s, uint64_t value, bool seen_all) const;
  bool resolve(Step& s, uint64_t value, bool seen_all) const;
  void remember_natures(const shm::Event* events, uint64_t n);

  bool optimal_;
  const ModelAnalysis& model_;
  Node chosen_;  // optimal mode: the branch the planned execution follows
  std::vector<Position> stack_;
  std::vector<Pending> pending_;
  bool started_ = false;
  bool exhausted_ = false;
  uint64_t branch_ = 0;         // where the planned execution leaves the stack
  uint32_t branch_thread_ = 0;  // source mode: the thread it runs there
  uint64_t races_ = 0, deferred_ = 0;
  // Partitioned: the item's root sleep set (state fixed_steps()-1), races
  // above the root, and whether an execution planned is still running.
  std::optional<std::vector<Sleeper>> root_sleep_;
  uint64_t root_sleep_mask_ = 0;
  bool collect_requests_ = false;
  std::vector<Request> requests_;
  bool in_flight_ = false;
  uint64_t fairness_cuts_ = 0;
  mutable uint64_t inferred_ = 0;
  // analyse's state per byte (the latest write, and the latest read of each
  // thread since), kept from one execution to the next so that analysing
  // one allocates nothing once the table has grown: open addressing, the
  // entries of earlier analyses told apart by their generation.
  struct ByteState {
    uint64_t addr = 0;
    uint32_t gen = 0;
    int64_t write = -1;
    std::vector<int64_t> reads;  // since the write, the latest per thread
  };
  struct ByteTable {
    std::vector<ByteState> slots;  // a power of two, at most half used
    uint32_t gen = 0;
    size_t used = 0;
    void reset();
    ByteState* find(uint64_t addr);
    ByteState& at(uint64_t addr);  // found or added (write -1, no reads)
  };
  ByteTable bytes_;
  // Per event of the latest execution: its clock and its index in its thread.
  std::vector<Clock> clocks_;
  std::vector<uint32_t> seq_;
  std::vector<uint32_t> thread_;
  // The entry of each thread in the clocks of the latest execution (dense:
  // the threads and flush actors that appear in it, in order of first
  // appearance).
  std::array<uint8_t, shm::kMaxThreads> slot_{};
  // analyse's candidates per event (kept to reuse their storage).
  std::vector<int64_t> cands_, racing_, hb_only_;
  // Per-execution scratch kept to reuse its storage (an execution's
  // analysis then allocates nothing once these have grown): the store
  // buffers as the events show them, each flush actor's flushes, a race's
  // notdep sequence, and the sleep-set vectors of positions popped off the
  // stack (a new position takes two of them).
  dpor::BufferedStores buffered_;
  // The analysis as it stood after the latest analysed execution, and a
  // trail of what each of its events changed, so that the next execution's
  // analysis rewinds to its branch point instead of walking the shared
  // prefix again (issue 27: the state before event k is a function of
  // events 0..k-1 alone; the slots of threads that appear there come out
  // the same, and clocks are zero at the slots of those that appear later).
  // Valid only when the prefix's events are the ones analysed (compared
  // whole) and the analysis ran to the end; source mode only (optimal mode
  // reverses every race again).
  struct AnalysisObject {
    int64_t last = -1;          // latest operation of any kind
    int64_t last_acquire = -1;  // latest successful acquisition
  };
  struct Undo {
    enum Op : uint8_t {
      Word,
      ByteWrite,
      ByteReadSet,
      ByteReadPush,
      Object,
      Opened,
      ExposedPush,
      ExposedErase,
      Buffered,
      FlushPush
    };
    uint64_t k;  // the event whose analysis made the change
    Op op;
    uint8_t size = 0;  // Word: the field's size
    uint64_t key = 0;
    int64_t a = 0, b = 0, c = 0;
    dpor::BufferedStores::Change change{};
  };
  std::vector<Undo> trail_;
  std::vector<int64_t> trail_values_;  // ByteWrite's old reads, ExposedErase's list
  std::vector<shm::Event> analysed_;   // the events the state covers
  bool analysed_valid_ = false;
  dpor::BufferedStores analysed_buffers_;
  std::array<int64_t, shm::kMaxThreads> last_of_thread_{}, created_by_{}, last_sfence_{}, woken_by_{};
  std::array<uint64_t, shm::kMaxThreads> waiting_on_{};
  std::array<uint8_t, shm::kMaxThreads> timed_wait_{};
  int64_t last_exit_ = -1;
  std::unordered_map<uint64_t, AnalysisObject> objects_;
  std::unordered_map<uint64_t, int64_t> opened_by_;
  std::unordered_map<int64_t, std::vector<int64_t>> exposed_by_flush_;
  // Sets a word of the analysis state, noting its old value for event k.
  template <class T>
  void trail_set(uint64_t k, T& field, T value) {
    static_assert(sizeof(T) <= 8);
    int64_t old = 0;
    std::memcpy(&old, &field, sizeof(T));
    trail_.push_back(Undo{k, Undo::Word, uint8_t(sizeof(T)), reinterpret_cast<uint64_t>(&field), old});
    field = value;
  }
  // Undoes what events from..end did (the trail's newest entries first).
  void rewind(uint64_t from);
  // Starts the state over (before event 0).
  void reset_analysis();
  std::array<std::vector<std::pair<int64_t, int64_t>>, shm::kMaxThreads> flushes_;
  std::vector<uint64_t> notdep_;
  std::array<Clock, shm::kMaxThreads> now_{};
  // initials_of's accesses and events of the sequence (a const query that
  // reuses their storage: the strategy is used by one thread at a time).
  mutable std::vector<Access> initial_access_;
  mutable std::vector<const shm::Event*> initial_events_;
  std::vector<std::vector<Sleeper>> spare_sleepers_;
  // Shrinks the stack to `size` positions, keeping their vectors' storage.
  void truncate_stack(size_t size);
  // A position for a new step, with recycled (empty) vectors.
  Position fresh_position();
  std::vector<uint64_t> history_;                         // optimal mode: Step::history of each event
  std::array<uint64_t, shm::kMaxThreads> end_history_{};  // and of each thread's next one
  // Per event: the events it cannot run without (the signal that woke a
  // condition wait, a flush's store, the flushes before a drain).
  std::vector<std::vector<int64_t>> enablers_;
  // Per event: its thread's latest sfence before it (-1: none).
  std::vector<int64_t> sfence_before_;
  // The thread whose buffer each flush actor is (learnt from its flushes;
  // actors are numbered in order of first use, so stable along a prefix).
  std::array<uint32_t, shm::kMaxThreads> owner_{};
  // Optimal mode: what each read-modify-write seen so far did with the value
  // it found, per step identity (thread, its earlier events, site, address).
  struct Seen {
    std::vector<std::pair<uint64_t, bool>> writes;  // value found -> wrote
    bool failed = false;                            // failed once: a compare-exchange
  };
  std::unordered_map<uint64_t, Seen> natures_;
  static constexpr size_t kMaxNatures = size_t(1) << 20;
};

}  // namespace ctrl
