/* Bug: an atomicity violation deep inside a long execution. Two workers
 * each run 1500 rounds of private work (an atomic add on their own counter:
 * about 3000 visible steps in all). Worker 0 sets `phase` to 1 at round 100
 * and to 2 at round 400. Worker 1 reads `phase` at round 900 and, if it saw
 * 1, asserts at round 1100 that it is still 1.
 * Depth 3 (two preemptions): worker 0 preempted between rounds 100 and 400,
 * worker 1 run to round 900 and preempted between rounds 900 and 1100,
 * worker 0 run past round 400. A random scheduler keeps the workers within a
 * few dozen rounds of each other: worker 0 is long past round 400 when
 * worker 1 reaches round 900. */
#include "bug_common.h"

#define ROUNDS 1500
static long phase, priv[2];

static void* worker(void* arg) {
  long id = (long)arg;
  long seen = 0;
  for (long i = 0; i < ROUNDS; i++) {
    FAA(priv[id], 1);
    if (id == 0 && i == 100) ST(phase, 1);
    if (id == 0 && i == 400) ST(phase, 2);
    if (id == 1 && i == 900) seen = LD(phase);
    if (id == 1 && i == 1100 && seen == 1) assert(LD(phase) == 1);
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  return 0;
}
