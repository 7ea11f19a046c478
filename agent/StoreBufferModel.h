// What TSO and PSO share (TsoModel.cpp, PsoModel.cpp): a plain store runs
// natively and its thread's store buffer (StoreBuffers.h, the data
// structure) records it; locked instructions, mfence, seq_cst stores,
// synchronisation calls and exits wait for the buffer to drain; each buffer
// that can flush is an extra actor (shm::kFlushActorBase + its number),
// whose step commits the oldest entry and is logged as a Flush event.
// The two differ only in StoreBuffers::Mode (one FIFO per thread, or per
// thread and 8-byte location).
#pragma once

#include "MemoryModel.h"
#include "MemorySnapshot.h"
#include "StoreBuffers.h"

namespace ctrl::agent {

// The store buffers' memory: a mapping of its own, emptied by reset() at
// the start of every execution, so a runner's rollback need not put it back
// (its pages would be copied after every execution: 4% of a queue2 TSO
// run's samples). {0, 0} if it could not be mapped (the buffers are then in
// the agent's data).
MemoryRange store_buffers_memory();

class StoreBufferModel : public MemoryModel {
 public:
  constexpr StoreBufferModel(shm::MemoryModel id, StoreBuffers::Mode mode)
      : MemoryModel(id, kStoreBuffers, shm::kFlushActorBase,
                    "the program has more than 32 threads that are running, detached or not joined by their "
                    "creator, the most --model tso and pso support"),
        mode_(mode) {}
  void reset() override;
  bool buffer_store(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) override;
  const char* no_buffer_left() const override { return StoreBuffers::kTooManyLocations; }
  ActorStep step_actor(uint32_t actor, uint32_t running) override;

 protected:
  StorePlan plan_buffered_store(uint32_t t, uint64_t addr, uint32_t size) const override;
  void fenced(uint32_t t) override;
  bool overlaps_buffer(uint32_t t, uint64_t addr, uint32_t size) const override;
  void switch_out(uint32_t t) override;
  void switch_in(uint32_t t) override;
  void live_stack(uint32_t t, uint64_t live) override;
  uint64_t actors(ExecutionModel& threads) const override;
  bool actor_keeps_asleep(const shm::Event& e, uint32_t t, const Access& next) const override;
  uint32_t buffered_stores(shm::BufferedStore* out, uint32_t max) const override;

 protected:
  ~StoreBufferModel() = default;

 private:
  StoreBuffers::Mode mode_;
};

}  // namespace ctrl::agent
