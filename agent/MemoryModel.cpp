#include "MemoryModel.h"

namespace ctrl::agent {

namespace {

template <class T>
MemoryModel::RmwResult sc_rmw(uint64_t memory, RmwOp op, uint64_t operand) {
  T old = c11::truncated<T>(memory);
  return {uint64_t(old), uint64_t(apply_rmw<T>(op, old, c11::truncated<T>(operand))), true};
}

}  // namespace

// As under SC: what memory holds is read, the new value always written.
// (The interposers compute SC's operations on memory themselves; these
// serve models that follow Choices only for some operations.)
MemoryModel::RmwResult MemoryModel::atomic_rmw(const shm::Choice&, uint32_t size, uint64_t memory, RmwOp op,
                                               uint64_t operand) const {
  switch (size) {
    case 1: return sc_rmw<uint8_t>(memory, op, operand);
    case 2: return sc_rmw<uint16_t>(memory, op, operand);
    case 4: return sc_rmw<uint32_t>(memory, op, operand);
    default: return sc_rmw<uint64_t>(memory, op, operand);
  }
}

MemoryModel::CasResult MemoryModel::atomic_cas(const shm::Choice&, uint32_t size, uint64_t memory,
                                               uint64_t expected) const {
  uint64_t mask = size >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * size)) - 1;
  bool ok = (memory & mask) == (expected & mask);
  return {memory & mask, ok, ok};
}

// The models, one file each; adding one adds its line here.
MemoryModel& sc_model();
MemoryModel& tso_model();
MemoryModel& pso_model();
MemoryModel& c11_model();
MemoryModel& rc11_model();
MemoryModel& ra_model();

MemoryModel& memory_model_for(shm::MemoryModel model) {
  switch (model) {
    case shm::MemoryModel::SC: break;
    case shm::MemoryModel::TSO: return tso_model();
    case shm::MemoryModel::PSO: return pso_model();
    case shm::MemoryModel::C11: return c11_model();
    case shm::MemoryModel::RC11: return rc11_model();
    case shm::MemoryModel::RA: return ra_model();
  }
  return sc_model();
}

}  // namespace ctrl::agent
