/* Bug: a one-preemption atomicity violation next to a thread that polls
 * forever (issue 22, item 18). A monitor thread counts ticks until main
 * sets `stop`, which main only does once both workers are joined; each
 * worker claims a job by checking `owner` and setting it in two steps
 * instead of a compare-exchange. If one worker checks `owner` between the
 * other's check and its store, both claim it and the assertion fails.
 * Every execution in which the monitor runs alone for long is cut by
 * --max-steps: a depth-first search (DPOR) then reverses the races of that
 * loop's last steps first (the workers, which have not run yet, could run
 * at any of them), thousands of deep variants before the shallow one.
 * Every access is a libatomic call (built with -fno-inline-atomics). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static long stop, ticks, owner, claims;

static void* monitor(void* arg) {
  (void)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) __atomic_fetch_add(&ticks, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static void* worker(void* arg) {
  long id = (long)arg;
  if (__atomic_load_n(&owner, __ATOMIC_SEQ_CST) == 0) { /* BUG: check, then act */
    __atomic_store_n(&owner, id, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&claims, 1, __ATOMIC_SEQ_CST);
  }
  return NULL;
}

int main(void) {
  pthread_t m, t[2];
  pthread_create(&m, NULL, monitor, NULL);
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  __atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
  pthread_join(m, NULL);
  long n = __atomic_load_n(&claims, __ATOMIC_SEQ_CST);
  printf("claims %ld after %ld ticks\n", n, __atomic_load_n(&ticks, __ATOMIC_SEQ_CST));
  assert(n == 1);
  return 0;
}
