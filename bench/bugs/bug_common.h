/* Shared by the buggy benchmark programs (bench/bugs): every shared access
 * is a libatomic call (built with -fno-inline-atomics -latomic), so ctrl
 * sees each one as a visible operation with no instruction site. */
#pragma once
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define LD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define FAA(x, v) __atomic_fetch_add(&(x), (v), __ATOMIC_SEQ_CST)
#define CAS(x, e, v) __bench_cas(&(x), (e), (v))

static inline int __bench_cas(long* p, long expected, long desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline void nap_ns(long ns) {
  struct timespec ts = {0, ns};
  nanosleep(&ts, NULL);
}
