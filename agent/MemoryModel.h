// The memory model as the agent applies it: one object per model decides
// what a load returns, what a store does (written to memory, held in a
// store buffer, or under c11/rc11 whatever the step's Choice says), which
// operations wait for a drain, and which actors besides the program's
// threads exist (store-buffer flushes) and how they step. The interposers
// (InterposeAtomics.cpp, InstructionSites.cpp, InterposePthread.cpp) and
// Runtime ask the current model and test no model flag of their own.
//
// Implementations, one file each: ScModel.cpp (memory as it is),
// TsoModel.cpp and PsoModel.cpp (store buffers, StoreBufferModel.h over
// StoreBuffers.h), C11Model.cpp (c11 and rc11: libatomic operations follow
// their step's Choice, AtomicChoice.h). memory_model_for (MemoryModel.cpp)
// is the one place that maps shm::MemoryModel to them; Runtime takes the
// plan's model from there at the start of each execution.
//
// Invariants:
//  * The hot path pays no call for what a model leaves as under SC: each
//    model says once, in its constructor, which of the two families of
//    decisions it makes (kStoreBuffers, kChoices), and the inline entry
//    points below call the virtual ones only for those. SC makes none, so
//    an SC event costs a test of one word per entry point, as the flags
//    it replaces did; TSO/PSO and c11 pay one virtual call where the store
//    buffers or the Choice logic were called before. Nothing allocates.
//  * The objects are constant-initialised and never destroyed; what they
//    allocate (the store buffers) is allocated when the agent is loaded,
//    before the program, so it is in every execution's starting heap. Their
//    state is agent memory, which a live checkpoint or a rollback carries
//    along.
//  * Called only by the thread holding the token (no locking).
#pragma once

#include <cstdint>

#include "AtomicChoice.h"
#include "Dependence.h"
#include "ExecutionModel.h"
#include "Operation.h"
#include "SharedRegion.h"

namespace ctrl::agent {

class MemoryModel {
 public:
  // The families of decisions a model makes beyond SC's.
  enum Hooks : uint32_t {
    kStoreBuffers = 1,  // plain stores may be buffered; flush actors; a thread's view moves with it
    kChoices = 2,       // libatomic operations of 1-8 bytes follow their step's shm::Choice
  };

  // `max_threads`: program threads it supports (thread indices below it;
  // extra actors take the ones above), `too_many_threads`: why a creation
  // past them ends the execution as unsupported.
  constexpr MemoryModel(shm::MemoryModel id, uint32_t hooks, uint32_t max_threads = shm::kMaxThreads,
                        const char* too_many_threads = "")
      : id_(id), hooks_(hooks), max_threads_(max_threads), too_many_threads_(too_many_threads) {}
  MemoryModel(const MemoryModel&) = delete;
  MemoryModel& operator=(const MemoryModel&) = delete;

  shm::MemoryModel id() const { return id_; }
  uint32_t max_threads() const { return max_threads_; }
  const char* too_many_threads() const { return too_many_threads_; }
  // A new execution starts (buffers empty).
  virtual void reset() {}

  // ---- stores ----
  struct StorePlan {
    bool buffered = false;  // the store goes to its thread's buffer
    bool drains = true;     // its pending operation waits for the thread's buffer to drain
  };
  // A plain store (an unlocked store instruction or the store half of an
  // unlocked read-modify-write, a non-seq_cst atomic store) of `size`
  // bytes at `addr` by `t`, about to become `t`'s pending operation.
  // Without buffers it is written to memory (and drains, which matters
  // only where buffers exist).
  StorePlan plan_store(uint32_t t, uint64_t addr, uint32_t size) const {
    if (!(hooks_ & kStoreBuffers)) return StorePlan{};
    return plan_buffered_store(t, addr, size);
  }
  // The store planned as buffered runs now (its turn came, `step` its
  // event): the buffer records what it replaces. False when the model has
  // no buffer left for it (the execution ends as unsupported, with
  // `no_buffer_left()`).
  virtual bool buffer_store(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) {
    (void)t, (void)addr, (void)size, (void)step;
    return true;
  }
  virtual const char* no_buffer_left() const { return ""; }
  // An sfence by `t` (a store-store barrier for its later stores).
  void store_fence(uint32_t t) {
    if (hooks_ & kStoreBuffers) fenced(t);
  }
  // ---- loads ----
  // A read by `t` of [addr, addr+size) reads bytes of its own buffer
  // (logged kForwarded).
  bool forwarded(uint32_t t, uint64_t addr, uint32_t size) const {
    return (hooks_ & kStoreBuffers) && overlaps_buffer(t, addr, size);
  }

  // ---- libatomic operations under a Choice (kChoices) ----
  // Whether libatomic operations follow their step's Choice: what a read
  // returns, whether a write reaches memory (the functions below), and
  // whether events log what the controller needs to recompute them for
  // another store (a read-modify-write's operand, a compare-exchange's
  // expected value, a store's previous value). Also: a planned decision may
  // run a thread the agent believes spins (its Choice may give it another
  // value to read).
  bool follows_choices() const { return hooks_ & kChoices; }
  // Values are the operation's low `size` bytes (1, 2, 4 or 8).
  virtual uint64_t atomic_read(const shm::Choice& c, uint32_t size, uint64_t memory) const {
    (void)c, (void)size;
    return memory;
  }
  // Whether a store (or a read-modify-write's write) reaches memory.
  virtual bool atomic_writes(const shm::Choice& c) const {
    (void)c;
    return true;
  }
  struct RmwResult {
    uint64_t read, written;
    bool write;
  };
  virtual RmwResult atomic_rmw(const shm::Choice& c, uint32_t size, uint64_t memory, RmwOp op, uint64_t operand) const;
  struct CasResult {
    uint64_t read;
    bool ok, write;
  };
  virtual CasResult atomic_cas(const shm::Choice& c, uint32_t size, uint64_t memory, uint64_t expected) const;
  // Why an atomic operation of another size (16 bytes, the generic entry
  // points) cannot run under this model; nullptr: it runs.
  virtual const char* refuses_atomic_size() const { return nullptr; }

  // ---- thread switches and extra actors (kStoreBuffers) ----
  // `t` is switched out (another thread runs) or back in: memory shows the
  // running thread's view.
  void switched_out(uint32_t t) {
    if (hooks_ & kStoreBuffers) switch_out(t);
  }
  void switched_in(uint32_t t) {
    if (hooks_ & kStoreBuffers) switch_in(t);
  }
  // The running thread `t` is at a visible operation, its program's stack
  // pointer at `live` (0: not known): what it stored below, the agent's
  // frames and the kernel's signal frames now overwrite (StoreBuffers.h).
  // Before any switch or flush of the operation.
  void stack_at(uint32_t t, uint64_t live) {
    if (hooks_ & kStoreBuffers) live_stack(t, live);
  }
  // Before a decision: the extra actors that may step now (bit i: actor
  // shm::kFlushActorBase + i), and the threads whose draining operations
  // must wait (told to `threads`).
  uint64_t ready_actors(ExecutionModel& threads) const {
    if (!(hooks_ & kStoreBuffers)) {
      threads.set_buffered(0);
      return 0;
    }
    return actors(threads);
  }
  // What an extra actor's step did, for the event log.
  struct ActorStep {
    OpKind kind = OpKind::None;
    uint64_t addr = 0, written = 0, aux = 0;
    uint32_t size = 0;
    uint8_t owner = 0;  // the program thread the actor belongs to
  };
  // Extra actor `actor` (0-based) steps while `running` is the thread
  // whose view memory shows.
  virtual ActorStep step_actor(uint32_t actor, uint32_t running) {
    (void)actor, (void)running;
    return ActorStep{};
  }
  // Sleep sets: whether an extra actor's event `e` leaves sleeper `t`
  // (about to make `next`) asleep although they conflict.
  bool keeps_asleep(const shm::Event& e, uint32_t t, const Access& next) const {
    return (hooks_ & kStoreBuffers) && actor_keeps_asleep(e, t, next);
  }
  // Stepping: the buffered stores shown to the controller (at most `max`).
  uint32_t shown_stores(shm::BufferedStore* out, uint32_t max) const {
    return (hooks_ & kStoreBuffers) ? buffered_stores(out, max) : 0;
  }

 protected:
  // The objects are static and never destroyed through this type: a
  // trivial destructor registers no exit handler (libc's first 32 are free;
  // more would allocate, in the program's heap, at the program's own
  // atexit calls).
  ~MemoryModel() = default;

  virtual StorePlan plan_buffered_store(uint32_t t, uint64_t addr, uint32_t size) const {
    (void)t, (void)addr, (void)size;
    return StorePlan{};
  }
  virtual void fenced(uint32_t t) { (void)t; }
  virtual bool overlaps_buffer(uint32_t t, uint64_t addr, uint32_t size) const {
    (void)t, (void)addr, (void)size;
    return false;
  }
  virtual void switch_out(uint32_t t) { (void)t; }
  virtual void switch_in(uint32_t t) { (void)t; }
  virtual void live_stack(uint32_t t, uint64_t live) { (void)t, (void)live; }
  virtual uint64_t actors(ExecutionModel& threads) const {
    threads.set_buffered(0);
    return 0;
  }
  virtual bool actor_keeps_asleep(const shm::Event& e, uint32_t t, const Access& next) const {
    (void)e, (void)t, (void)next;
    return false;
  }
  virtual uint32_t buffered_stores(shm::BufferedStore* out, uint32_t max) const {
    (void)out, (void)max;
    return 0;
  }

 private:
  shm::MemoryModel id_;
  uint32_t hooks_;
  uint32_t max_threads_;
  const char* too_many_threads_;
};

// The model object of `model` (MemoryModel.cpp: the one place a model is
// added). Lives as long as the agent.
MemoryModel& memory_model_for(shm::MemoryModel model);

}  // namespace ctrl::agent
