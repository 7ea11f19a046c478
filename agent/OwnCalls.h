// The agent's own futexes and system calls, made through libc directly: the
// agent's syscall() is an interposer that models the program's futexes
// (agent/KernelWaits.h).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>

#include <atomic>
#include <cstdint>

#include "RealFunctions.h"

namespace ctrl::agent::own {

template <typename... Args>
long sys(long number, Args... args) {
  ensure_real();
  return real.syscall(number, args...);
}

inline void futex_wake(std::atomic<uint32_t>* word) {
  sys(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

}  // namespace ctrl::agent::own
