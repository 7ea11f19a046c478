// The execution graph of one C11/RC11 execution (GraphStrategy.h): every
// event of the execution in the order it ran (which is also the order the
// graph was built in), with, for memory events, the store each read reads
// from (rf) and per location the modification order (mo) of the stores.
//
// Invariants:
//  * event i is the execution's step i; po is the order of a thread's events;
//  * every location has an implicit initial store, kInit, first in mo;
//  * mo(loc) lists each store of loc exactly once (a RMW's write included);
//    a RMW's write comes right after the store its read reads (atomicity is
//    what the consistency check verifies, not an assumption);
//  * rf of a read is kInit, an earlier store, or (c11) a store performed
//    later in the execution that satisfied a promise.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "Operation.h"
#include "SharedRegion.h"

namespace ctrl {

inline constexpr uint32_t kInit = shm::kFromInit;
inline constexpr uint32_t kNone = UINT32_MAX - 1;

// What an event is to the memory model.
enum class GraphKind : uint8_t {
  Other,  // no memory effect (thread start, yield ...); ordered only by po
  Read,   // an atomic load, a failed compare-exchange, a failed trylock
  Write,  // an atomic store, an unlock
  Rmw,    // a read-modify-write, a successful compare-exchange, a lock
  Fence,
};

struct GraphEvent {
  uint32_t thread = 0;
  uint32_t index = 0;  // position among its thread's events (po)
  GraphKind kind = GraphKind::Other;
  OpKind op = OpKind::None;
  MemOrder order = MemOrder::Relaxed;
  uint64_t loc = 0;
  uint32_t size = 0;    // bytes accessed
  bool locked = false;  // a locked instruction
  // A read repeating its thread's previous one in the same state (a spin
  // loop iteration with no effect: shm::kSameState).
  bool same_state = false;
  uint64_t rval = 0, wval = 0;
  uint64_t expected = 0;  // a compare-exchange's expected value
  RmwOp rmw = RmwOp::None;
  uint32_t rf = kNone;   // reads: the step of the store read, or kInit
  bool promise = false;  // c11: rf was promised before the store ran
  // The agent cannot be told what it reads (an instruction-site atomic, a
  // pthread call): it always reads the mo-last store.
  bool fixed = false;
  // Thread creation and joins, and synchronisation objects ctrl does not
  // model as memory: the step this event must follow (kNone: none).
  uint32_t sync_from = kNone;
  bool is_read() const { return kind == GraphKind::Read || kind == GraphKind::Rmw; }
  bool is_write() const { return kind == GraphKind::Write || kind == GraphKind::Rmw; }
  bool is_acquire() const {
    return order == MemOrder::Acquire || order == MemOrder::AcqRel || order == MemOrder::SeqCst ||
           order == MemOrder::Consume;
  }
  bool is_release() const {
    return order == MemOrder::Release || order == MemOrder::AcqRel || order == MemOrder::SeqCst;
  }
  bool is_sc() const { return order == MemOrder::SeqCst; }
  bool atomic() const { return order != MemOrder::NotAtomic; }
};

// How the event at a step was added, as a plan records it (GraphStrategy):
// the agent's Choice, plus what the graph needs that the agent is not told.
struct StepChoice {
  shm::Choice choice{};
  uint32_t rf = kNone;         // reads: the store read (kInit, a step), for fixed reads too
  uint32_t mo_before = kNone;  // writes not mo-last: the store this one is placed right before
};

class ExecutionGraph {
 public:
  // The graph of an execution from its event log: steps below `choices.size()`
  // follow their StepChoice, later ones the tail's default (reads read the
  // mo-last store, stores become mo-last).
  static ExecutionGraph build(const shm::Event* events, uint64_t n, const std::vector<StepChoice>& choices);

  size_t size() const { return events_.size(); }
  const GraphEvent& at(size_t i) const { return events_[i]; }
  GraphEvent& at(size_t i) { return events_[i]; }
  const std::vector<GraphEvent>& events() const { return events_; }
  const std::map<uint64_t, std::vector<uint32_t>>& mo() const { return mo_; }
  std::vector<uint32_t>& mo(uint64_t loc) { return mo_[loc]; }
  const std::vector<uint32_t>* mo_of(uint64_t loc) const;
  // The value of loc's initial store (0 when no event showed it).
  uint64_t init_value(uint64_t loc) const;
  void set_init_value(uint64_t loc, uint64_t v) { init_[loc] = v; }
  // The value store `w` (a step, or kInit for loc) wrote.
  uint64_t value_of(uint32_t w, uint64_t loc) const { return w == kInit ? init_value(loc) : events_[w].wval; }
  // mo position of w in loc (kInit: 0, stores from 1).
  size_t mo_position(uint64_t loc, uint32_t w) const;
  // The mo-last store of loc among the steps in `keep` (all when empty).
  uint32_t mo_last(uint64_t loc) const;

  // The graph of the first n events (mo and rf restricted to them; a read
  // whose store is not among them keeps rf == kNone).
  ExecutionGraph prefix(size_t n) const;
  // (po ∪ rf ∪ sync)-prefix of event e (e included), as a bit per step.
  std::vector<bool> porf_prefix(uint32_t e) const;
  // The event's thread's previous event (kNone for the first).
  uint32_t po_previous(uint32_t e) const;

  // Appends an event (the exploration adds events one by one too).
  void push(const GraphEvent& e) { events_.push_back(e); }
  // Removes the last event, and its store from mo: undoes push and the
  // insertion of its store (GraphStrategy tries candidates on one graph).
  void pop_last();
  void reserve(size_t n) { events_.reserve(n); }

  // A hash of the graph that does not depend on the order events were
  // added: events named by (thread, index), with their rf and each mo.
  uint64_t canonical_hash() const;

 private:
  std::vector<GraphEvent> events_;
  std::map<uint64_t, std::vector<uint32_t>> mo_;  // loc -> stores after kInit, in mo
  std::map<uint64_t, uint64_t> init_;
};

// The graph kind of a logged event (Other for events the memory model does
// not order by memory).
GraphKind graph_kind_of(const shm::Event& e);

}  // namespace ctrl
