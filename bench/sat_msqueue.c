/* The Michael-Scott lock-free queue (PODC 1996), as in SATCheck's
 * evaluation (Demsky, Lam, OOPSLA 2015, "MSQueue", the variant without
 * pointer arithmetic): nodes are indices into a static array (0 is null),
 * one enqueuer and one dequeuer. The enqueuer enqueues 1..N (argv[1],
 * default 2); the dequeuer makes N attempts and asserts that what it got is
 * the next value in order (an attempt may find the queue empty).
 *
 * Variant (argv[2]): "broken", an enqueuer that links its node before it
 * writes the node's value (the publication out of order): the dequeuer may
 * take a node whose value is not there yet (found under sc). Every shared
 * access is a libatomic call (-fno-inline-atomics). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 4096

struct node {
  int value;
  int next;
};

static struct node nodes[MAX_NODES];
static int head = 1, tail = 1;  // node 1 is the dummy
static int rounds = 2, broken;

static void enqueue(int n, int v) {
  if (!broken) __atomic_store_n(&nodes[n].value, v, __ATOMIC_SEQ_CST);
  __atomic_store_n(&nodes[n].next, 0, __ATOMIC_SEQ_CST);
  for (;;) {
    int t = __atomic_load_n(&tail, __ATOMIC_SEQ_CST);
    int next = __atomic_load_n(&nodes[t].next, __ATOMIC_SEQ_CST);
    if (t != __atomic_load_n(&tail, __ATOMIC_SEQ_CST)) continue;
    if (next == 0) {
      int expected = 0;
      if (__atomic_compare_exchange_n(&nodes[t].next, &expected, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        if (broken) __atomic_store_n(&nodes[n].value, v, __ATOMIC_SEQ_CST);
        __atomic_compare_exchange_n(&tail, &t, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return;
      }
    } else {
      __atomic_compare_exchange_n(&tail, &t, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
  }
}

// The value dequeued, or 0 when the queue was empty.
static int dequeue(void) {
  for (;;) {
    int h = __atomic_load_n(&head, __ATOMIC_SEQ_CST);
    int t = __atomic_load_n(&tail, __ATOMIC_SEQ_CST);
    int next = __atomic_load_n(&nodes[h].next, __ATOMIC_SEQ_CST);
    if (h != __atomic_load_n(&head, __ATOMIC_SEQ_CST)) continue;
    if (h == t) {
      if (next == 0) return 0;
      __atomic_compare_exchange_n(&tail, &t, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    } else {
      int v = __atomic_load_n(&nodes[next].value, __ATOMIC_SEQ_CST);
      if (__atomic_compare_exchange_n(&head, &h, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return v;
    }
  }
}

static void *enqueuer(void *arg) {
  (void)arg;
  for (int i = 1; i <= rounds; ++i) enqueue(i + 1, i);
  return NULL;
}

static void *dequeuer(void *arg) {
  (void)arg;
  int expect = 1;
  for (int i = 0; i < rounds; ++i) {
    int v = dequeue();
    if (v == 0) continue;
    assert(v == expect);
    ++expect;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (rounds > MAX_NODES - 2) rounds = MAX_NODES - 2;
  if (argc > 2 && strcmp(argv[2], "broken") == 0) broken = 1;
  pthread_t e, d;
  pthread_create(&e, NULL, enqueuer, NULL);
  pthread_create(&d, NULL, dequeuer, NULL);
  pthread_join(e, NULL);
  pthread_join(d, NULL);
  return 0;
}
