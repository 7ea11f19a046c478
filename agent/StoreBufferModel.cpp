#include "StoreBufferModel.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "StoreBufferAnalysis.h"

namespace ctrl::agent {

namespace {
// One set of buffers for both models (an execution has one model), in a
// mapping of its own made when the agent is loaded, before the program
// (store_buffers_memory: outside every snapshot, so a rollback never undoes
// what is in it), else in the agent's data; never destroyed (no exit
// handler, as MemoryModel.h says). Built at the first reset() of a
// store-buffer model, not at load: value-initialising its 1.3 MB was half
// of every program's start with the agent, under sc too (docs/PERFORMANCE.md,
// "Start-up of ctrl"). `built` sits beside the buffers, so that a rollback
// undoes both or neither.
struct Holder {
  bool built;
  alignas(StoreBuffers) unsigned char bytes[sizeof(StoreBuffers)];
};
constexpr size_t kMapped = (sizeof(Holder) + 4095) & ~size_t(4095);
alignas(Holder) unsigned char fallback[sizeof(Holder)];
Holder* holder = nullptr;
__attribute__((constructor(101))) void map_buffers() {
  void* p = mmap(nullptr, kMapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  holder = static_cast<Holder*>(p == MAP_FAILED ? static_cast<void*>(fallback) : p);
}
// Valid once reset() built them: every execution under a store-buffer
// model starts with reset() (ForkServer), before any other call.
StoreBuffers* buffers() { return std::launder(reinterpret_cast<StoreBuffers*>(holder->bytes)); }
}  // namespace

MemoryRange store_buffers_memory() {
  if (reinterpret_cast<unsigned char*>(holder) == fallback || !holder) return MemoryRange{0, 0};
  uint64_t start = reinterpret_cast<uint64_t>(holder);
  return MemoryRange{start, start + kMapped};
}

void StoreBufferModel::reset() {
  if (!holder->built) {
    new (holder->bytes) StoreBuffers();
    holder->built = true;
  }
  buffers()->reset(mode_);
}

MemoryModel::StorePlan StoreBufferModel::plan_buffered_store(uint32_t t, uint64_t addr, uint32_t size) const {
  // Too big, or across a word under PSO: it runs directly on a drained
  // buffer. A full buffer drains first, then takes it.
  if (!buffers()->bufferable(addr, size)) return StorePlan{false, true};
  return StorePlan{true, buffers()->full(t)};
}

bool StoreBufferModel::buffer_store(uint32_t t, uint64_t addr, uint32_t size, uint64_t step) {
  return buffers()->record(t, addr, size, step);
}

void StoreBufferModel::fenced(uint32_t t) { buffers()->fence(t); }

bool StoreBufferModel::overlaps_buffer(uint32_t t, uint64_t addr, uint32_t size) const {
  return buffers()->overlaps(t, addr, size);
}

void StoreBufferModel::switch_out(uint32_t t) { buffers()->switch_out(t); }
void StoreBufferModel::switch_in(uint32_t t) { buffers()->switch_in(t); }
void StoreBufferModel::live_stack(uint32_t t, uint64_t live) { buffers()->stack_at(t, live); }

uint64_t StoreBufferModel::actors(ExecutionModel& threads) const {
  uint64_t flushers = buffers()->flushable_actors();
  threads.set_buffered(buffers()->nonempty_threads());
  return flushers;
}

MemoryModel::ActorStep StoreBufferModel::step_actor(uint32_t actor, uint32_t running) {
  uint32_t owner = 0;
  StoreBuffers::Entry e = buffers()->flush(actor, running, owner);
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
  return StoreBufferAnalysis::flush_keeps_asleep(e, t, next, ModelAnalysis::ForwardsWhole{buffers(), ask});
}

uint32_t StoreBufferModel::buffered_stores(shm::BufferedStore* out, uint32_t max) const {
  return buffers()->snapshot(out, max);
}

}  // namespace ctrl::agent
