/* Bug: a single-producer single-consumer ring of 2 slots whose producer
 * publishes the new tail before it writes the slot. Both sides retry with
 * sched_yield (counting: local progress) while the ring is full or empty,
 * so each waits on the other again and again; the consumer asserts the
 * values arrive in order.
 * Depth 1: the consumer's read of a slot between the producer's tail store
 * and its slot store; but a scheduler that keeps running a retrying thread
 * (the old sticky tail) spends whole executions in one retry loop.
 * Retry style: sched_yield loops on both sides. */
#include "bug_common.h"

#define ITEMS 6
#define SLOTS 2
static long head, tail, slot[SLOTS];

static void* producer(void* arg) {
  (void)arg;
  long full = 0;
  for (long v = 1; v <= ITEMS; v++) {
    long t = LD(tail);
    while (t - LD(head) == SLOTS) {
      sched_yield();
      full++;
    }
    ST(tail, t + 1); /* BUG: published before the slot is written */
    ST(slot[t % SLOTS], v);
  }
  return (void*)full;
}

static void* consumer(void* arg) {
  (void)arg;
  long empty = 0;
  for (long want = 1; want <= ITEMS; want++) {
    long h = LD(head);
    while (LD(tail) == h) {
      sched_yield();
      empty++;
    }
    long v = LD(slot[h % SLOTS]);
    assert(v == want);
    ST(head, h + 1);
  }
  return (void*)empty;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  return 0;
}
