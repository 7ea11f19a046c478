/* What every mutual-exclusion program here shares: the memory order of the
 * algorithm's accesses, the workers, the check inside the critical section
 * and the command line.
 *
 * Each algorithm's source is built twice: with -DMUTEX_ORDER_SEQ_CST every
 * shared access of the algorithm is memory_order_seq_cst, without it every one
 * is memory_order_relaxed. The algorithm defines acquire() and release() and
 * calls mutex_main() from main.
 *
 * Usage: PROGRAM [THREADS [ENTRIES]]: THREADS workers (2 by default) each
 * enter the critical section ENTRIES times (1 by default). */
#ifndef MUTEX_HARNESS_H
#define MUTEX_HARNESS_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef MUTEX_ORDER_SEQ_CST
#define MUTEX_ORDER memory_order_seq_cst
#else
#define MUTEX_ORDER memory_order_relaxed
#endif
#define LOAD(x) atomic_load_explicit(&(x), MUTEX_ORDER)
#define STORE(x, v) atomic_store_explicit(&(x), (v), MUTEX_ORDER)

#define MUTEX_MAX_THREADS 4

/* Set by mutex_main before any worker starts, never written afterwards. */
static int nthreads;
static int entries;

static void acquire(int me);
static void release(int me);

/* Threads inside the critical section. Relaxed in both variants: it is the
 * test's probe, not part of the algorithm, so the variants differ only in
 * the algorithm's own accesses; and relaxed accesses are plain loads and
 * stores (no locked instruction, no fence) that do not order the algorithm's
 * accesses under TSO or PSO. When the algorithm lets two threads in, some
 * interleaving has the second read the first one's 1 here. */
static atomic_int occupancy;

static void critical_section(void) {
  int inside = atomic_load_explicit(&occupancy, memory_order_relaxed);
  assert(inside == 0 && "two threads in the critical section");
  atomic_store_explicit(&occupancy, inside + 1, memory_order_relaxed);
  atomic_store_explicit(&occupancy, inside, memory_order_relaxed);
}

static void *worker(void *arg) {
  int me = (int)(long)arg;
  for (int round = 0; round < entries; ++round) {
    acquire(me);
    critical_section();
    release(me);
  }
  return NULL;
}

static int parse_count(const char *text, int min, int max, const char *what) {
  char *end;
  long value = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < min || value > max) {
    fprintf(stderr, "%s must be a number from %d to %d, not '%s'\n", what, min, max, text);
    exit(2);
  }
  return (int)value;
}

static int mutex_main(int argc, char **argv, int max_threads) {
  if (argc > 3) {
    fprintf(stderr, "usage: %s [THREADS [ENTRIES]]\n", argv[0]);
    return 2;
  }
  nthreads = argc > 1 ? parse_count(argv[1], 2, max_threads, "THREADS") : 2;
  entries = argc > 2 ? parse_count(argv[2], 1, 100, "ENTRIES") : 1;
  pthread_t threads[MUTEX_MAX_THREADS];
  for (int t = 0; t < nthreads; ++t)
    if (pthread_create(&threads[t], NULL, worker, (void *)(long)t) != 0) {
      perror("pthread_create");
      return 2;
    }
  for (int t = 0; t < nthreads; ++t) pthread_join(threads[t], NULL);
  return 0;
}

#endif
