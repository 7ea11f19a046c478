/* A plain pthread program with no atomics: two threads write a plain global
 * without a lock. Under --model c11 and rc11 the two writes are a data race
 * (unordered by happens-before, both non-atomic): a bug of kind data-race
 * naming both writes. Built with ordinary flags. */
#include <pthread.h>

static int hits;

static void *worker(void *arg) {
  hits = (int)(long)arg;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void *)1);
  pthread_create(&b, 0, worker, (void *)2);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return hits == 0;
}
