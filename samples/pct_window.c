/* Buggy, with a bug of known depth for PCT's probability bound
 * (tests/e2e/check_pct_bound.cmake). Three threads: main creates the
 * reader, then the writer, and joins them. The writer stores 1 .. 20 to
 * `x`; the reader reads `x` once. The bug: the reader sees one of the
 * writer's last 4 values but not its last, 16..19, that is after the
 * writer's store 16 and before its store 20: depth 2. PCT at depth 2 finds
 * it when the reader has the lowest priority and the change point falls on
 * one of the 4 steps of stores 17..20 (about 4/(3 k) per execution, 4 times
 * the paper's bound 1/(n k)); a random walk lets the reader, enabled from
 * the start, wait 16 of the writer's steps with probability about 2^-16,
 * and no schedule without preemptions has it (the reader reads 0 or 20).
 * Each store of the loop is one visible step. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define STORES 20
#define WINDOW 4
static int x;

static void *writer(void *arg) {
  (void)arg;
  for (int i = 1; i <= STORES; ++i) __atomic_store_n(&x, i, __ATOMIC_RELAXED);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  int v = __atomic_load_n(&x, __ATOMIC_RELAXED);
  int late = v >= STORES - WINDOW && v < STORES;
  assert(!late);
  return NULL;
}

int main(void) {
  pthread_t r, w;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(r, NULL);
  pthread_join(w, NULL);
  printf("x = %d\n", x);
  return 0;
}
