// System calls without libc: no errno (a thread-local write), no interposer,
// usable while the process's memory is being put back (MemorySnapshot.h)
// and on a stack of the agent's own. Returns the kernel's result (-errno on
// failure).
#pragma once

namespace ctrl::agent {

inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  long ret;
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  return ret;
}

}  // namespace ctrl::agent
