#include "StoreBufferModel.h"

#include <cstring>

namespace ctrl::agent {

namespace {
// One set of buffers for both models (an execution has one model), built
// with the agent like every model object.
StoreBuffers buffers __attribute__((init_priority(101)));
}  // namespace

StoreBufferModel::StoreBufferModel(shm::MemoryModel id, StoreBuffers::Mode mode)
    : MemoryModel(id, kStoreBuffers, shm::kFlushActorBase,
                  "the program has more than 32 threads that are running, detached or not joined by their "
                  "creator, the most --model tso and pso support"),
      mode_(mode) {}

void StoreBufferModel::reset() { buffers.reset(mode_); }

MemoryModel::StorePlan StoreBufferModel::plan_buffered_store(uint32_t t, uint64_t addr, uint32_t size) const {
  // Too big, or across a word under PSO: it runs directly on a drained
  // buffer. A full buffer drains first, then takes it.
  if (!buffers.bufferable(addr, size)) return StorePlan{false, true};
  return StorePlan{true, buffers.full(t)};
}

bool StoreBufferModel::buffer_store(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) {
  return buffers.record(t, addr, size, step);
}

void StoreBufferModel::fenced(uint32_t t) { buffers.fence(t); }

bool StoreBufferModel::overlaps_buffer(uint32_t t, uint64_t addr, uint32_t size) const {
  return buffers.overlaps(t, addr, size);
}

void StoreBufferModel::switch_out(uint32_t t) { buffers.switch_out(t); }
void StoreBufferModel::switch_in(uint32_t t) { buffers.switch_in(t); }

uint64_t StoreBufferModel::actors(ExecutionModel& threads) const {
  uint64_t flushers = buffers.flushable_actors();
  threads.set_buffered(buffers.nonempty_threads());
  return flushers;
}

MemoryModel::ActorStep StoreBufferModel::step_actor(uint32_t actor, uint32_t running) {
  uint32_t owner = 0;
  StoreBuffers::Entry e = buffers.flush(actor, running, owner);
  ActorStep s;
  s.kind = OpKind::Flush;
  s.addr = e.addr;
  memcpy(&s.written, e.written, e.size < 8 ? e.size : 8);
  s.aux = e.step;
  s.size = e.size;
  s.owner = uint8_t(owner);
  return s;
}

// A flush commutes with its own thread's next step, and with a load
// forwarded whole from the sleeper's buffer (as DporStrategy::completed
// keeps sleepers).
bool StoreBufferModel::actor_keeps_asleep(const shm::Event& e, uint32_t t, const Access& next) const {
  return OpKind(e.kind) == OpKind::Flush &&
         (e.owner == t || (only_reads(next) && buffers.forwards_whole(t, next.read_addr, uint32_t(next.read_size))));
}

uint32_t StoreBufferModel::buffered_stores(shm::BufferedStore* out, uint32_t max) const {
  return buffers.snapshot(out, max);
}

}  // namespace ctrl::agent
