/* Buggy: an increment split into an atomic load and an atomic store.
 *
 * Each access is atomic, but the read-modify-write is not: if both threads
 * load before either stores, one increment is lost and the assertion fails.
 * Built with -fno-inline-atomics so the accesses are libatomic calls, which
 * ctrl sees. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int x;

static void *increment(void *arg) {
  (void)arg;
  int v = atomic_load(&x);
  atomic_store(&x, v + 1); /* should be atomic_fetch_add */
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, increment, NULL);
  pthread_create(&t2, NULL, increment, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int final = atomic_load(&x);
  printf("x = %d\n", final);
  assert(final == 2);
  return 0;
}
