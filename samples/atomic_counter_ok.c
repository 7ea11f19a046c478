/* Correct: three threads increment a counter with atomic_fetch_add. Built
 * with -fno-inline-atomics so the increments are libatomic calls. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { THREADS = 3, ROUNDS = 2 };

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
