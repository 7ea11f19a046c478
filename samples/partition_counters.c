/* Correct: four threads increment one counter twice each with
 * atomic_fetch_add (libatomic calls, -fno-inline-atomics): 8!/(2!^4) = 2520
 * orders of the increments, enough executions for partitioned DPOR's
 * sessions (-j N) to steal work from each other. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 2 };

static atomic_int counter;

static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) atomic_fetch_add(&counter, 1);
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  int final = atomic_load(&counter);
  printf("counter = %d\n", final);
  assert(final == THREADS * ROUNDS);
  return 0;
}
