/* Bug: an ordering bug behind a barrier. Three workers each fill their slot,
 * meet at a barrier, then worker 0 sums the slots into `total` while the
 * others, after some work of their own, read `total` as if a second
 * barrier had separated the phases (it is missing). Before the barrier
 * every order is fine; after it, a reader that runs its few steps before
 * worker 0's store fails its assertion.
 * Depth 1 after the barrier (worker 0 preempted between leaving the barrier
 * and storing `total`); a random scheduler finds it often, a systematic one
 * must first get through every order of the first phase. */
#include "bug_common.h"

#define WORKERS 3
static pthread_barrier_t barrier;
static long slot[WORKERS], total, priv[WORKERS];

static void* worker(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < 3; i++) FAA(priv[id], 1);
  ST(slot[id], id + 1);
  pthread_barrier_wait(&barrier);
  if (id == 0) {
    long s = 0;
    for (int i = 0; i < WORKERS; i++) s += LD(slot[i]);
    ST(total, s);
  } else {
    for (int i = 0; i < 4; i++) FAA(priv[id], 1);
    /* BUG: no second pthread_barrier_wait here */
    assert(LD(total) == 6);
  }
  return NULL;
}

int main(void) {
  pthread_t t[WORKERS];
  pthread_barrier_init(&barrier, NULL, WORKERS);
  for (long i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
  return 0;
}
