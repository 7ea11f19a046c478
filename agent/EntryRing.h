// A FIFO of at most N entries in fixed storage: a store buffer's entries
// (StoreBuffers.h). A std::deque allocated a node every few stores and
// freed one every few flushes, from the program's heap, at every step of a
// TSO execution (malloc and free were 1.5% of a queue2 TSO run's samples).
//
// Invariants: the entries are slot (head_ + i) % N for i < count_, oldest
// first; clear() makes the next entry slot 0 again, so an execution with
// few buffered stores touches the same few entries every time. The slots
// are raw storage, an entry made when it is added: constructing N entries
// of every ring up front would touch all of them (1.3 MiB for the agent's
// store buffers) in every process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

namespace ctrl::agent {

template <typename T, uint32_t N>
class EntryRing {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  template <typename Ring, typename Value>
  class Iter {
   public:
    Iter(Ring* ring, uint32_t i) : ring_(ring), i_(i) {}
    Value& operator*() const { return ring_->at(i_); }
    Value* operator->() const { return &ring_->at(i_); }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
    uint32_t index() const { return i_; }

   private:
    Ring* ring_;
    uint32_t i_;
  };
  // Newest first.
  template <typename Ring, typename Value>
  class ReverseIter {
   public:
    ReverseIter(Ring* ring, uint32_t i) : ring_(ring), i_(i) {}
    Value& operator*() const { return ring_->at(i_ - 1); }
    Value* operator->() const { return &ring_->at(i_ - 1); }
    ReverseIter& operator++() {
      --i_;
      return *this;
    }
    bool operator!=(const ReverseIter& o) const { return i_ != o.i_; }

   private:
    Ring* ring_;
    uint32_t i_;
  };
  using iterator = Iter<EntryRing, T>;
  using const_iterator = Iter<const EntryRing, const T>;
  using reverse_iterator = ReverseIter<EntryRing, T>;
  using const_reverse_iterator = ReverseIter<const EntryRing, const T>;

  bool empty() const { return count_ == 0; }
  uint32_t size() const { return count_; }
  void clear() {
    head_ = 0;
    count_ = 0;
  }
  // The i-th oldest entry.
  T& at(uint32_t i) { return *slot(head_ + i); }
  const T& at(uint32_t i) const {
    return *std::launder(reinterpret_cast<const T*>(items_ + sizeof(T) * ((head_ + i) % N)));
  }
  T& front() { return at(0); }
  const T& front() const { return at(0); }
  T& back() { return at(count_ - 1); }
  const T& back() const { return at(count_ - 1); }
  // A new newest entry, value-initialised (as deque::emplace_back()); the
  // caller keeps size() < N.
  T& emplace_back() {
    T* e = new (items_ + sizeof(T) * ((head_ + count_) % N)) T{};
    ++count_;
    return *e;
  }
  // Removes the entry `it` is at, keeping the others' order.
  void erase(iterator it) {
    uint32_t i = it.index();
    if (i == 0) {
      head_ = (head_ + 1) % N;
    } else {
      for (; i + 1 < count_; ++i) at(i) = at(i + 1);
    }
    --count_;
  }

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, count_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, count_); }
  reverse_iterator rbegin() { return reverse_iterator(this, count_); }
  reverse_iterator rend() { return reverse_iterator(this, 0); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(this, count_); }
  const_reverse_iterator rend() const { return const_reverse_iterator(this, 0); }

 private:
  T* slot(uint32_t i) { return std::launder(reinterpret_cast<T*>(items_ + sizeof(T) * (i % N))); }

  alignas(T) unsigned char items_[sizeof(T) * N];
  uint32_t head_ = 0;
  uint32_t count_ = 0;
};

}  // namespace ctrl::agent
