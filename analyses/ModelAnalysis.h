// The memory model as the analyses apply it: one object per model says how
// its executions are explored and gives the model's own rules for that:
//  * dependence-based exploration (DPOR and sleep sets, DporStrategy; SC,
//    TSO, PSO): the conflict relation of Dependence.h on logged events,
//    which a model with store buffers refines along each execution
//    (Nidhugg's chronological traces: a flush is its store's write, a load
//    forwarded whole from the thread's buffer conflicts with nothing until
//    that store's flush, a thread's reads never conflict with its own
//    flushes, a flush follows its store and, under PSO, the flushes of the
//    stores before the sfence that precedes it);
//  * graph-based exploration (GraphStrategy; c11, rc11): whether an
//    execution graph is consistent (C11Consistency.h), and whether a read
//    may read a store that comes later in the execution (load buffering,
//    through promises).
// Implementations, one file each: ScAnalysis.cpp, TsoAnalysis.cpp,
// PsoAnalysis.cpp (over StoreBufferAnalysis.h), C11Analysis.cpp,
// RC11Analysis.cpp. model_analysis (ModelAnalysis.cpp) is the one place
// that maps shm::MemoryModel to them; StrategyFactory builds the model's
// systematic strategy from it. The agent's half of a model is
// agent/MemoryModel.h.
//
// Invariant: the objects are immutable, constant-initialised and never
// destroyed.
#pragma once

#include <cstdint>
#include <string>

#include "Dependence.h"
#include "SharedRegion.h"

namespace ctrl {

class ExecutionGraph;
class HappensBefore;

class ModelAnalysis {
 public:
  enum class Exploration {
    Dependence,  // DPOR over the conflict relation (DporStrategy)
    Graphs,      // execution graphs checked for consistency (GraphStrategy)
    WeakTraces,  // one execution per weak trace (po, rf): WeakTraceStrategy (ra)
  };

  virtual shm::MemoryModel id() const = 0;
  virtual Exploration exploration() const = 0;
  // The decisions of its plans carry a shm::Choice (graphs: which store a
  // read reads, whether a store becomes mo-last), which the agent follows
  // for libatomic operations only, and the analysis gives the model's own
  // bugs (data races, uninitialised loads). What matches or rebuilds plans
  // by their threads alone (shrinking, live checkpoints, stepping, -j
  // helper sessions) does not serve such a model.
  bool plans_choices() const { return exploration() != Exploration::Dependence; }

  // ---- dependence (Exploration::Dependence) ----
  // Executions have store buffers: flush actors (threads from
  // shm::kFlushActorBase), buffered stores and forwarded loads, which DPOR
  // orders and refines as chronological traces do.
  virtual bool store_buffers() const { return false; }
  // An sfence orders the flushes of its thread's stores before it ahead of
  // those after it (PSO; under TSO a thread's flushes are in order anyway).
  virtual bool sfence_orders_flushes() const { return false; }
  // Whether t's buffer forwards a load `next` whole (t's newest buffered
  // store there covers it), asked of whoever holds the buffers: the agent's
  // StoreBuffers, or DPOR's view of them along an execution.
  struct ForwardsWhole {
    const void* buffers;
    bool (*ask)(const void* buffers, uint32_t t, const Access& next);
    bool operator()(uint32_t t, const Access& next) const { return ask(buffers, t, next); }
  };
  // Sleep sets: whether sleeper `t`, about to make `next`, stays asleep
  // across event `ran` although they conflict. Controller and agent apply
  // this same rule.
  virtual bool keeps_asleep(const shm::Event& ran, uint32_t t, const Access& next, ForwardsWhole whole) const {
    (void)ran, (void)t, (void)next, (void)whole;
    return false;
  }

  // ---- consistency (Exploration::Graphs) ----
  // Empty when g is consistent, else which axiom fails.
  virtual std::string inconsistency(const ExecutionGraph& g) const;
  bool consistent(const ExecutionGraph& g) const { return inconsistency(g).empty(); }
  // Whether g is, given that all of it but its last event is (`hb`: clocks
  // of g's other events).
  virtual bool consistent_last(const ExecutionGraph& g, const HappensBefore& hb) const;
  // A read may read a store later in the execution (load buffering), as a
  // promise the store must keep.
  virtual bool reads_from_later_stores() const { return false; }

 protected:
  // Static objects, never destroyed through this type: a trivial destructor
  // registers no exit handler (the agent uses these too, inside the
  // program, where libc's atexit list is the program's).
  ~ModelAnalysis() = default;
};

// The analyses of `model` (ModelAnalysis.cpp: the one place a model is
// added).
const ModelAnalysis& model_analysis(shm::MemoryModel model);

}  // namespace ctrl
