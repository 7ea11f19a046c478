// Where libc keeps a thread's kernel tid in its thread descriptor (glibc's
// struct pthread, at the thread pointer): the word the kernel writes at a
// thread's creation (CLONE_PARENT_SETTID) and clears, with a futex wake,
// when the thread is gone (CLONE_CHILD_CLEARTID). The agent recreates
// recycled threads with clone() and waits for threads to be gone through
// that word, so a wrong offset makes the kernel write a tid into some other
// field of the descriptor (and a wait for the word to clear never ends).
//
// The layout is private to libc, so the offset is found by looking for the
// calling thread's tid in its descriptor. One thread's tid can also match
// by chance: the high half of the descriptor's pointers to itself (its
// first and third words, on x86-64) is the tid whenever the tid equals the
// top 32 bits of the descriptor's address (a tid of about 32,600 against a
// descriptor at 0x7fxx'xxxxxxxx). So the candidates of one thread are kept,
// without those halves, and confirmed with other threads' descriptors.
#pragma once

#include <cstdint>
#include <cstring>

namespace ctrl::agent::tid_word {

// glibc's struct pthread is at least this big; the tid is an aligned int.
inline constexpr int kScan = 0x600;
inline constexpr int kMaxCandidates = 8;

struct Candidates {
  int offset[kMaxCandidates];
  int count = 0;
};

// The offsets in the descriptor at `pd` (kScan bytes readable) of an int
// equal to `tid`, in increasing order, except the high halves of 8-byte
// words that point at the descriptor itself.
inline Candidates find(const char* pd, int tid) {
  Candidates c;
  for (int off = 0; off < kScan && c.count < kMaxCandidates; off += 4) {
    int v;
    memcpy(&v, pd + off, sizeof v);
    if (v != tid) continue;
    if (off % 8 == 4) {
      uint64_t word;
      memcpy(&word, pd + off - 4, sizeof word);
      if (word == reinterpret_cast<uint64_t>(pd)) continue;
    }
    c.offset[c.count++] = off;
  }
  return c;
}

// The first candidate at which every one of `n` other descriptors holds its
// thread's tid, or -1.
inline int confirm(const Candidates& c, const char* const* pds, const int* tids, int n) {
  for (int i = 0; i < c.count; ++i) {
    bool all = true;
    for (int t = 0; t < n && all; ++t) {
      int v;
      memcpy(&v, pds[t] + c.offset[i], sizeof v);
      all = v == tids[t];
    }
    if (all) return c.offset[i];
  }
  return -1;
}

}  // namespace ctrl::agent::tid_word
