/* Bug: an invariant broken only by three preemptions in a long execution.
 * Three workers each run 1000 rounds of private work (about 3000 visible
 * steps). Worker 0, at one round, raises `phase` to 1 and later to 2;
 * worker 1 checks, at one round of its own, that phase is 1 and then sets
 * `mid`; worker 2 asserts, when it sees phase 2, that `mid` was set. The
 * assertion fails only if worker 1 saw phase 1 (it ran inside worker 0's
 * window) but worker 2 looked after phase 2 yet before worker 1's store.
 * Depth 3: three ordering constraints among thousands of steps. */
#include "bug_common.h"

#define ROUNDS 1000
static long phase, seen1, mid, priv[3];

static void* worker(void* arg) {
  long id = (long)arg;
  for (long i = 0; i < ROUNDS; i++) {
    FAA(priv[id], 1);
    if (id == 0 && i == 300) ST(phase, 1);
    if (id == 0 && i == 320) ST(phase, 2);
    if (id == 1 && i == 500 && LD(phase) == 1) {
      ST(seen1, 1);
      FAA(priv[id], 1);
      ST(mid, 1);
    }
    if (id == 2 && i == 700 && LD(phase) == 2 && LD(seen1)) assert(LD(mid) == 1);
  }
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  return 0;
}
