// C11 and RC11 (--model c11|rc11) in the agent: libatomic operations of 1,
// 2, 4 or 8 bytes follow their step's shm::Choice (AtomicChoice.h): what
// a read returns, whether a write reaches memory (which so always holds the
// location's modification-order-last store). Everything else (instruction
// sites, pthread calls) runs as under SC, without store buffers. The two
// models differ only in what the controller explores (analyses/C11Analysis.cpp,
// RC11Analysis.cpp), not in what the agent does.
#include "MemoryModel.h"

namespace ctrl::agent {

namespace {

template <class T>
MemoryModel::RmwResult rmw_of(const shm::Choice& c, uint64_t memory, RmwOp op, uint64_t operand) {
  c11::Rmw<T> r = c11::rmw(c, c11::truncated<T>(memory), op, c11::truncated<T>(operand));
  return {uint64_t(r.read), uint64_t(r.written), r.write};
}

template <class T>
MemoryModel::CasResult cas_of(const shm::Choice& c, uint64_t memory, uint64_t expected) {
  c11::Cas<T> r = c11::cas(c, c11::truncated<T>(memory), c11::truncated<T>(expected));
  return {uint64_t(r.read), r.ok, r.write};
}

class C11Model final : public MemoryModel {
 public:
  constexpr explicit C11Model(shm::MemoryModel id) : MemoryModel(id, kChoices) {}

  uint64_t atomic_read(const shm::Choice& c, uint32_t size, uint64_t memory) const override {
    switch (size) {
      case 1: return c11::read_value(c, c11::truncated<uint8_t>(memory));
      case 2: return c11::read_value(c, c11::truncated<uint16_t>(memory));
      case 4: return c11::read_value(c, c11::truncated<uint32_t>(memory));
      default: return c11::read_value(c, memory);
    }
  }
  bool atomic_writes(const shm::Choice& c) const override { return c11::becomes_mo_last(c); }
  RmwResult atomic_rmw(const shm::Choice& c, uint32_t size, uint64_t memory, RmwOp op,
                       uint64_t operand) const override {
    switch (size) {
      case 1: return rmw_of<uint8_t>(c, memory, op, operand);
      case 2: return rmw_of<uint16_t>(c, memory, op, operand);
      case 4: return rmw_of<uint32_t>(c, memory, op, operand);
      default: return rmw_of<uint64_t>(c, memory, op, operand);
    }
  }
  CasResult atomic_cas(const shm::Choice& c, uint32_t size, uint64_t memory, uint64_t expected) const override {
    switch (size) {
      case 1: return cas_of<uint8_t>(c, memory, expected);
      case 2: return cas_of<uint16_t>(c, memory, expected);
      case 4: return cas_of<uint32_t>(c, memory, expected);
      default: return cas_of<uint64_t>(c, memory, expected);
    }
  }
  const char* refuses_atomic_size() const override {
    return "an atomic operation of a size other than 1, 2, 4 or 8 bytes: --model c11/rc11 cannot follow it (use "
           "--model sc)";
  }
};

constinit C11Model c11_instance{shm::MemoryModel::C11};
constinit C11Model rc11_instance{shm::MemoryModel::RC11};
// ra (release-acquire, analyses/RaAnalysis.cpp) follows the same Choices:
// which store a read reads is all its weak-trace exploration decides.
constinit C11Model ra_instance{shm::MemoryModel::RA};

}  // namespace

MemoryModel& c11_model() { return c11_instance; }
MemoryModel& rc11_model() { return rc11_instance; }
MemoryModel& ra_model() { return ra_instance; }

}  // namespace ctrl::agent
