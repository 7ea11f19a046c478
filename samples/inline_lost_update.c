/* Buggy: an increment split into an atomic load and an atomic store, with
 * inline atomics.
 *
 * The same bug as lost_update_atomic.c, but built like any program (plain
 * -O2, no -fno-inline-atomics): the accesses are inline instructions, not
 * libatomic calls. With memory_order_relaxed (the default) both the load and
 * the store are plain movs; with "sc" as the first argument they are seq_cst,
 * and GCC compiles the store to xchg. Either way the read-modify-write is not
 * atomic: if both threads load before either stores, one increment is lost
 * and the assertion fails. ctrl sees the movs under --visible all, and only
 * the xchg (seq_cst mode) under --visible atomics. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int x;

static void *increment_relaxed(void *arg) {
  (void)arg;
  int v = atomic_load_explicit(&x, memory_order_relaxed);
  atomic_store_explicit(&x, v + 1, memory_order_relaxed); /* should be fetch_add */
  return NULL;
}

static void *increment_seq_cst(void *arg) {
  (void)arg;
  int v = atomic_load_explicit(&x, memory_order_seq_cst);
  atomic_store_explicit(&x, v + 1, memory_order_seq_cst); /* should be fetch_add */
  return NULL;
}

int main(int argc, char **argv) {
  void *(*increment)(void *) = increment_relaxed;
  if (argc > 1 && strcmp(argv[1], "sc") == 0) increment = increment_seq_cst;
  pthread_t t1, t2;
  pthread_create(&t1, NULL, increment, NULL);
  pthread_create(&t2, NULL, increment, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int final = atomic_load_explicit(&x, memory_order_relaxed);
  printf("x = %d\n", final);
  assert(final == 2);
  return 0;
}
