/* Bug: publication in the wrong order. The producer raises `ready` before it
 * writes `data`; the consumer retries with sched_yield (counting its
 * attempts: local progress, so spin detection does not hold it back) until
 * `ready`, then asserts on `data`.
 * Depth 1: the consumer must run between the producer's two stores.
 * Retry style: sched_yield loop waiting on another thread. */
#include "bug_common.h"

static long ready, data;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 0; i < 20; i++) FAA(data, 0); /* some work first */
  ST(ready, 1);
  ST(data, 42);
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  long tries = 0;
  while (!LD(ready)) {
    sched_yield();
    tries++;
  }
  assert(LD(data) == 42);
  return (void*)tries;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  return 0;
}
