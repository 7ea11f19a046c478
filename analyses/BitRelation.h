// A binary relation over n elements as bit rows (n of any size), for the
// axioms of C11Consistency: sequence, union, closure, acyclicity.
//
// Invariant: no bit at or above size() is set in any row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ctrl {

class BitRelation {
 public:
  explicit BitRelation(size_t n) : n_(n), words_((n + 63) / 64), bits_(n * words_, 0) {}

  size_t size() const { return n_; }
  void add(size_t a, size_t b) { row(a)[b / 64] |= uint64_t(1) << (b % 64); }
  bool has(size_t a, size_t b) const { return row(a)[b / 64] >> (b % 64) & 1; }

  BitRelation& unite(const BitRelation& o) {
    for (size_t i = 0; i < bits_.size(); i++) bits_[i] |= o.bits_[i];
    return *this;
  }
  // this ; o
  BitRelation then(const BitRelation& o) const {
    BitRelation r(n_);
    for (size_t a = 0; a < n_; a++) {
      uint64_t* out = r.row(a);
      const uint64_t* in = row(a);
      for (size_t w = 0; w < words_; w++)
        for (uint64_t m = in[w]; m; m &= m - 1) {
          const uint64_t* src = o.row(w * 64 + size_t(__builtin_ctzll(m)));
          for (size_t k = 0; k < words_; k++) out[k] |= src[k];
        }
    }
    return r;
  }
  // this+ (Warshall)
  BitRelation closure() const {
    BitRelation r = *this;
    for (size_t k = 0; k < n_; k++) {
      const uint64_t* rk = r.row(k);
      for (size_t a = 0; a < n_; a++)
        if (r.has(a, k)) {
          uint64_t* ra = r.row(a);
          for (size_t w = 0; w < words_; w++) ra[w] |= rk[w];
        }
    }
    return r;
  }
  bool has_reflexive_pair() const {
    for (size_t a = 0; a < n_; a++)
      if (has(a, a)) return true;
    return false;
  }
  bool acyclic() const { return !closure().has_reflexive_pair(); }

 private:
  uint64_t* row(size_t a) { return bits_.data() + a * words_; }
  const uint64_t* row(size_t a) const { return bits_.data() + a * words_; }
  size_t n_, words_;
  std::vector<uint64_t> bits_;
};

}  // namespace ctrl
