/* Bug: a sequence lock whose writer bumps the sequence only once, after
 * writing, instead of before and after. A reader retries (sched_yield)
 * while the sequence is odd or changed, but with one bump it never sees
 * an odd value and can read a torn pair (a != b), asserted.
 * Depth 2: the reader's two loads between the writer's two stores, and
 * its sequence re-check before the writer's bump.
 * Retry style: sched_yield retry loop (local progress: a count). */
#include "bug_common.h"

static long seq, a, b;

static void* writer(void* arg) {
  (void)arg;
  for (long v = 1; v <= 3; v++) {
    /* BUG: missing FAA(seq, 1) here (the sequence goes odd while writing) */
    ST(a, v);
    ST(b, v);
    FAA(seq, 2);
  }
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  long retries = 0;
  for (int k = 0; k < 2; k++) {
    long s, x, y;
    for (;;) {
      s = LD(seq);
      if (s & 1) {
        sched_yield();
        retries++;
        continue;
      }
      x = LD(a);
      y = LD(b);
      if (LD(seq) == s) break;
      sched_yield();
      retries++;
    }
    assert(x == y);
  }
  return (void*)retries;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  return 0;
}
