/* Not a spin: each thread re-reads the loop bound (a global) at every
 * iteration while it makes progress by incrementing a counter. ctrl must
 * not take the unchanged re-reads for a thread spinning forever. Correct. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static int iterations;
static atomic_int counter;

static void *work(void *arg) {
  for (int i = 0; i < iterations; ++i) atomic_fetch_add(&counter, 1);
  return arg;
}

int main(int argc, char **argv) {
  iterations = argc > 1 ? atoi(argv[1]) : 150;
  pthread_t a, b;
  pthread_create(&a, NULL, work, NULL);
  pthread_create(&b, NULL, work, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(atomic_load(&counter) == 2 * iterations);
  return 0;
}
