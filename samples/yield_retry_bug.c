/* Bug: publication in the wrong order behind a sched_yield retry loop. The
 * producer raises `ready` before it writes `data`; the consumer, created
 * first, retries with sched_yield and counts its attempts (local progress:
 * no spin) until `ready`, then asserts on `data`. Without fair scheduling
 * of yields DPOR's sticky tail runs the consumer alone until --max-steps in
 * every execution and never finds the bug. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

static long ready, data;

static void* producer(void* arg) {
  (void)arg;
  __atomic_store_n(&ready, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&data, 42, __ATOMIC_SEQ_CST);
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  long tries = 0;
  while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST)) {
    sched_yield();
    tries++;
  }
  assert(__atomic_load_n(&data, __ATOMIC_SEQ_CST) == 42);
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
