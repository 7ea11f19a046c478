/* Bug: a lost update deep inside a long execution. Two workers each run
 * 1500 rounds of work (an atomic add on a shared statistics counter, which
 * races with the other worker's: about 3000 visible steps and as many races
 * in all); once, at a round of its own, each does an
 * unprotected read-modify-write of `shared` in two steps with 10 steps of
 * work between. The update is lost only when the other worker's whole
 * read-modify-write falls inside that window.
 * Depth 2: worker B's read and write (round 400) inside A's window (round
 * 100): A preempted there, among thousands of steps. A random scheduler
 * keeps the workers within a few dozen rounds of each other and almost never
 * lets one lag 300 rounds behind; PCT needs one change point in the window;
 * DPOR reverses the races of the statistics counter from the end backwards
 * first, thousands of them, before it reaches the early window. */
#include "bug_common.h"

#define ROUNDS 1500
static long shared, stats;

static void* worker(void* arg) {
  long id = (long)arg;
  long at = id == 0 ? 100 : 400;
  for (long i = 0; i < ROUNDS; i++) {
    FAA(stats, 1);
    if (i == at) {
      long v = LD(shared);
      for (int k = 0; k < 10; k++) FAA(stats, 1);
      ST(shared, v + 1);
    }
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void*)0L);
  pthread_create(&b, NULL, worker, (void*)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(LD(shared) == 2);
  return 0;
}
