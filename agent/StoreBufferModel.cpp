#include "StoreBufferModel.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "StoreBufferAnalysis.h"

namespace ctrl::agent {

namespace {
// One set of buffers for both models (an execution has one model), built
// when the agent is loaded, before the program, and never destroyed (no
// exit handler, as MemoryModel.h says). In a mapping of its own
// (store_buffers_memory), else in the agent's data.
constexpr size_t kMapped = (sizeof(StoreBuffers) + 4095) & ~size_t(4095);
alignas(StoreBuffers) unsigned char fallback[sizeof(StoreBuffers)];
StoreBuffers* mapped = nullptr;
__attribute__((constructor(101))) void build_buffers() {
  void* p = mmap(nullptr, kMapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  mapped = new (p == MAP_FAILED ? static_cast<void*>(fallback) : p) StoreBuffers();
}
}  // namespace

MemoryRange store_buffers_memory() {
  if (reinterpret_cast<unsigned char*>(mapped) == fallback || !mapped) return MemoryRange{0, 0};
  uint64_t start = reinterpret_cast<uint64_t>(mapped);
  return MemoryRange{start, start + kMapped};
}

void StoreBufferModel::reset() { mapped->reset(mode_); }

MemoryModel::StorePlan StoreBufferModel::plan_buffered_store(uint32_t t, uint64_t addr, uint32_t size) const {
  // Too big, or across a word under PSO: it runs directly on a drained
  // buffer. A full buffer drains first, then takes it.
  if (!mapped->bufferable(addr, size)) return StorePlan{false, true};
  return StorePlan{true, mapped->full(t)};
}

bool StoreBufferModel::buffer_store(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) {
  return mapped->record(t, addr, size, step);
}

void StoreBufferModel::fenced(uint32_t t) { mapped->fence(t); }

bool StoreBufferModel::overlaps_buffer(uint32_t t, uint64_t addr, uint32_t size) const {
  return mapped->overlaps(t, addr, size);
}

void StoreBufferModel::switch_out(uint32_t t) { mapped->switch_out(t); }
void StoreBufferModel::switch_in(uint32_t t) { mapped->switch_in(t); }
void StoreBufferModel::live_stack(uint32_t t, uint64_t live) { mapped->stack_at(t, live); }

uint64_t StoreBufferModel::actors(ExecutionModel& threads) const {
  uint64_t flushers = mapped->flushable_actors();
  threads.set_buffered(mapped->nonempty_threads());
  return flushers;
}

MemoryModel::ActorStep StoreBufferModel::step_actor(uint32_t actor, uint32_t running) {
  uint32_t owner = 0;
  StoreBuffers::Entry e = mapped->flush(actor, running, owner);
  ActorStep s;
  s.kind = OpKind::Flush;
  s.addr = e.addr;
  memcpy(&s.written, e.written, e.size < 8 ? e.size : 8);
  s.aux = e.step;
  s.size = e.size;
  s.owner = uint8_t(owner);
  return s;
}

// The controller's rule (analyses/StoreBufferAnalysis.h), with what this
// buffer forwards.
bool StoreBufferModel::actor_keeps_asleep(const shm::Event& e, uint32_t t, const Access& next) const {
  auto ask = [](const void* b, uint32_t thread, const Access& a) {
    return static_cast<const StoreBuffers*>(b)->forwards_whole(thread, a.read_addr, uint32_t(a.read_size));
  };
  return StoreBufferAnalysis::flush_keeps_asleep(e, t, next, ModelAnalysis::ForwardsWhole{mapped, ask});
}

uint32_t StoreBufferModel::buffered_stores(shm::BufferedStore* out, uint32_t max) const {
  return mapped->snapshot(out, max);
}

}  // namespace ctrl::agent
