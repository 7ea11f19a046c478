// What a libatomic operation computes, and under --model c11/rc11 what the
// Choice of its step (shm::Choice, SharedRegion.h) makes of it: which value
// its read returns and whether its write reaches memory. Pure: the
// interposers (InterposeAtomics.cpp) read and write memory around these, and
// unit tests check them alone.
//
// Invariants:
//  * A read returns Choice::value (its first sizeof(T) bytes) for ReadFrom
//    and Promise, memory otherwise.
//  * A read-modify-write computes its new value from the value it read,
//    whatever that came from; a compare-exchange succeeds iff that value
//    equals `expected`, and a failed one never writes.
//  * kNotMoLast: the value written is computed (and logged) but memory keeps
//    its value, the mo-last store's.
#pragma once

#include <cstdint>
#include <cstring>

#include "Operation.h"
#include "SharedRegion.h"

namespace ctrl::agent {

// The value a read-modify-write `op` writes over `old`.
template <class T>
T apply_rmw(RmwOp op, T old, T operand) {
  switch (op) {
    case RmwOp::Xchg: return operand;
    case RmwOp::Add: return T(old + operand);
    case RmwOp::Sub: return T(old - operand);
    case RmwOp::And: return T(old & operand);
    case RmwOp::Or: return T(old | operand);
    case RmwOp::Xor: return T(old ^ operand);
    case RmwOp::Nand: return T(~(old & operand));
    case RmwOp::None: break;
  }
  return old;
}

namespace c11 {

inline bool reads_given(const shm::Choice& c) {
  return c.kind == shm::ChoiceKind::ReadFrom || c.kind == shm::ChoiceKind::Promise;
}
inline bool becomes_mo_last(const shm::Choice& c) { return !(c.flags & shm::kNotMoLast); }
// A Choice that changes nothing: the operation runs as under SC.
inline bool plain(const shm::Choice& c) { return !reads_given(c) && becomes_mo_last(c); }

// The first sizeof(T) bytes of `v` (little-endian: its low bits).
template <class T>
T truncated(uint64_t v) {
  static_assert(sizeof(T) <= 8);
  T r;
  std::memcpy(&r, &v, sizeof(T));
  return r;
}

// What a load (or the read half of a read-modify-write) returns, `memory`
// being what the location holds.
template <class T>
T read_value(const shm::Choice& c, T memory) {
  return reads_given(c) ? truncated<T>(c.value) : memory;
}

template <class T>
struct Rmw {
  T read;     // returned by fetch-op forms, logged as value_read
  T written;  // returned by op-fetch forms, logged as value_written
  bool write;  // memory takes `written`
};
template <class T>
Rmw<T> rmw(const shm::Choice& c, T memory, RmwOp op, T operand) {
  T read = read_value(c, memory);
  return {read, apply_rmw(op, read, operand), becomes_mo_last(c)};
}

template <class T>
struct Cas {
  T read;      // what *expected gets on failure; logged as value_read
  bool ok;     // the compare-exchange succeeded
  bool write;  // memory takes the desired value
};
template <class T>
Cas<T> cas(const shm::Choice& c, T memory, T expected) {
  T read = read_value(c, memory);
  bool ok = std::memcmp(&read, &expected, sizeof(T)) == 0;
  return {read, ok, ok && becomes_mo_last(c)};
}

}  // namespace c11
}  // namespace ctrl::agent
