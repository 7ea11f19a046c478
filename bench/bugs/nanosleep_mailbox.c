/* Bug: a one-slot mailbox whose producers check that the slot is empty and
 * then fill it in two steps (check-then-act), so two producers can both see
 * it empty and one message overwrites the other. The consumer polls with
 * nanosleep and, once both producers say they are done, asserts it got both.
 * Depth 2: the second producer's check must fall between the first's check
 * and store.
 * Retry style: nanosleep polling on both sides. */
#include "bug_common.h"

static long slot, done[2];

static void* producer(void* arg) {
  long id = (long)arg;
  for (;;) {
    if (LD(slot) == 0) {
      ST(slot, id + 1); /* BUG: not a compare-exchange */
      break;
    }
    nap_ns(1000);
  }
  ST(done[id], 1);
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  long got = 0, sum = 0;
  while (got < 2) {
    long v = LD(slot);
    if (v) {
      ST(slot, 0);
      sum += v;
      got++;
    } else if (LD(done[0]) && LD(done[1]) && LD(slot) == 0) {
      break;
    } else {
      nap_ns(1000);
    }
  }
  assert(got == 2 && sum == 3);
  return NULL;
}

int main(void) {
  pthread_t c, p0, p1;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p0, NULL, producer, (void*)0L);
  pthread_create(&p1, NULL, producer, (void*)1L);
  pthread_join(p0, NULL);
  pthread_join(p1, NULL);
  pthread_join(c, NULL);
  return 0;
}
