/* Shared by the litmus programs of this directory.
 *
 * Each operation of the notation in a program's header is one macro below,
 * and each macro is exactly one x86-64 instruction on a shared 8-byte global,
 * so the instructions ctrl sees are the ones the notation describes: the
 * compiler can neither drop, merge nor reorder them (volatile asm with a
 * "memory" clobber), and it adds no other access to shared memory inside a
 * thread's operations. litmus_model checks that each thread's macro calls
 * match its THREAD line, so header and program cannot drift apart.
 *
 * Loaded values stay in registers (C locals) until the thread's operations
 * are done; only then are they copied into result globals (res_r0, ...) that
 * main reads after joining, so no extra visible access sits between the
 * operations under test.
 *
 * The shared locations are declared `static volatile long`: every mov of a
 * litmus test is an atomic x86 access by design, and ctrl's race check
 * (--races, on by default) takes volatile objects for marked ones, as the
 * Linux kernel's KCSAN does; as plain longs they would be data races. */
#ifndef LITMUS_H
#define LITMUS_H

#include <assert.h>
#include <pthread.h>
#include <stddef.h>

/* store X V: mov $V, X */
#define STORE(var, val) \
  __asm__ volatile("movq %1, %0" : "=m"(var) : "er"((long)(val)) : "memory")

/* load R X: mov X, R */
#define LOAD(reg, var) __asm__ volatile("movq %1, %0" : "=r"(reg) : "m"(var) : "memory")

#define MFENCE() __asm__ volatile("mfence" : : : "memory")
#define SFENCE() __asm__ volatile("sfence" : : : "memory")
#define LFENCE() __asm__ volatile("lfence" : : : "memory")

/* xchg R X V: R = V, then xchg R, X (implicitly locked): R gets X's old
 * value and X gets V in one atomic step. */
#define XCHG(reg, var, val)                                                   \
  do {                                                                        \
    (reg) = (val);                                                            \
    __asm__ volatile("xchgq %0, %1" : "+r"(reg), "+m"(var) : : "memory");     \
  } while (0)

/* xadd R X V: R = V, then lock xadd R, X: R gets X's old value, X += V. */
#define XADD(reg, var, val)                                                   \
  do {                                                                        \
    (reg) = (val);                                                            \
    __asm__ volatile("lock xaddq %0, %1" : "+r"(reg), "+m"(var) : : "memory"); \
  } while (0)

/* lock-add X V: lock add $V, X (used on a thread-private word it is the
 * classic cheaper-than-mfence full barrier). */
#define LOCK_ADD(var, val) \
  __asm__ volatile("lock addq %1, %0" : "+m"(var) : "er"((long)(val)) : "memory")

/* Creates one thread per function of the table (in order: t0 is the first
 * created), then joins them all. */
#define LITMUS_RUN(table) litmus_run((table), sizeof(table) / sizeof((table)[0]))

typedef void *(*litmus_thread)(void *);

static inline void litmus_run(const litmus_thread *fns, size_t n) {
  pthread_t ids[8];
  assert(n <= sizeof(ids) / sizeof(ids[0]));
  for (size_t i = 0; i < n; i++) {
    int rc = pthread_create(&ids[i], NULL, fns[i], NULL);
    assert(rc == 0);
    (void)rc;
  }
  for (size_t i = 0; i < n; i++)
    pthread_join(ids[i], NULL);
}

#endif
