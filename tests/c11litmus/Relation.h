// A binary relation over at most 64 events, one bit row per event: the
// algebra the axioms of C11Model.cpp are written in (sequence, union,
// closure, restriction to sets given as bit masks).
//
// Invariant: no bit at or above size() is ever set, in any row.
#ifndef CTRL_C11LITMUS_RELATION_H
#define CTRL_C11LITMUS_RELATION_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace c11litmus {

class Relation {
 public:
  static constexpr size_t kMaxEvents = 64;

  explicit Relation(size_t n) : rows_(n, 0) {}
  static Relation identity(size_t n) {
    Relation r(n);
    for (size_t a = 0; a < n; a++) r.add(a, a);
    return r;
  }

  size_t size() const { return rows_.size(); }
  void add(size_t a, size_t b) { rows_[a] |= bit(b); }
  bool has(size_t a, size_t b) const { return rows_[a] & bit(b); }

  Relation unite(const Relation& o) const {
    Relation r = *this;
    for (size_t a = 0; a < size(); a++) r.rows_[a] |= o.rows_[a];
    return r;
  }
  Relation intersect(const Relation& o) const {
    Relation r = *this;
    for (size_t a = 0; a < size(); a++) r.rows_[a] &= o.rows_[a];
    return r;
  }
  Relation minus(const Relation& o) const {
    Relation r = *this;
    for (size_t a = 0; a < size(); a++) r.rows_[a] &= ~o.rows_[a];
    return r;
  }
  // this ; o
  Relation then(const Relation& o) const {
    Relation r(size());
    for (size_t a = 0; a < size(); a++)
      for (uint64_t m = rows_[a]; m; m &= m - 1) r.rows_[a] |= o.rows_[__builtin_ctzll(m)];
    return r;
  }
  Relation inverse() const {
    Relation r(size());
    for (size_t a = 0; a < size(); a++)
      for (size_t b = 0; b < size(); b++)
        if (has(a, b)) r.add(b, a);
    return r;
  }
  // [from] ; this ; [to]
  Relation restrict(uint64_t from, uint64_t to) const {
    Relation r(size());
    for (size_t a = 0; a < size(); a++)
      if (from & bit(a)) r.rows_[a] = rows_[a] & to;
    return r;
  }
  // this+ (Warshall)
  Relation closure() const {
    Relation r = *this;
    for (size_t k = 0; k < size(); k++)
      for (size_t a = 0; a < size(); a++)
        if (r.rows_[a] & bit(k)) r.rows_[a] |= r.rows_[k];
    return r;
  }
  // this*
  Relation reflexive_closure() const { return closure().unite(identity(size())); }
  bool has_reflexive_pair() const {
    for (size_t a = 0; a < size(); a++)
      if (has(a, a)) return true;
    return false;
  }
  bool acyclic() const { return !closure().has_reflexive_pair(); }

 private:
  static uint64_t bit(size_t a) { return uint64_t(1) << a; }
  std::vector<uint64_t> rows_;
};

}  // namespace c11litmus

#endif
