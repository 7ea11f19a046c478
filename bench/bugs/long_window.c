/* Bug: a lost update deep inside a long execution. Two workers each run
 * 1500 rounds of private work (an atomic add on their own counter: about
 * 3000 visible steps in all); once, at a round of its own, each does an
 * unprotected read-modify-write of `shared` in two steps with a few steps of
 * work between. The update is lost only when the other worker's whole
 * read-modify-write falls inside that window.
 * Depth 2: worker B's read after A's read, and A's write after B's write,
 * among thousands of steps (random scheduling almost never does it). */
#include "bug_common.h"

#define ROUNDS 1500
static long shared, priv[2];

static void* worker(void* arg) {
  long id = (long)arg;
  long at = id == 0 ? 600 : 900;
  for (long i = 0; i < ROUNDS; i++) {
    FAA(priv[id], 1);
    if (i == at) {
      long v = LD(shared);
      FAA(priv[id], 1);
      FAA(priv[id], 1);
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
