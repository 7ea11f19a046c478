// Copies and comparisons of the program's memory that no sanitizer sees.
// libc's memcpy, memset and memcmp are intercepted by a sanitizer's runtime, preloaded before the
// agent: ASan checks the bytes against its shadow (which these copies may
// cover, with the redzones it poisons), and TSan records an access by the
// calling thread, which for the agent's own bookkeeping (a store buffer
// flushed or switched out on another thread's behalf) is an access the
// program never made there: a false race.
#pragma once

#include <cstddef>

namespace ctrl::agent {

inline void copy_raw(void* dst, const void* src, size_t n) {
  asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
inline void zero_raw(void* dst, size_t n) { asm volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0) : "memory"); }
// Whether the n bytes at a and b are equal.
inline bool equal_raw(const void* a, const void* b, size_t n) {
  if (n == 0) return true;
  bool equal;
  asm volatile("repe cmpsb" : "=@ccz"(equal), "+D"(a), "+S"(b), "+c"(n) : : "memory");
  return equal;
}

}  // namespace ctrl::agent
