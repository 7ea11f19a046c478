/* Bug: ABA in a lock-free (Treiber) stack that recycles its nodes. Thread A
 * pops: it reads top (node 1) and its next (node 2), then is preempted;
 * thread B pops node 1, pops node 2 and pushes node 1 back; A's
 * compare-exchange on top then succeeds (top is node 1 again) and installs
 * node 2, which B owns: two owners of one node (asserted through an owner
 * mark). Depth 3: B's three operations inside A's window between reading
 * next and its compare-exchange. */
#include "bug_common.h"

#define NODES 3
static long next_of[NODES + 1]; /* node 0 is null */
static long top;
static long owner[NODES + 1];   /* 0: in the stack, else the thread id */

static long pop(long me) {
  for (;;) {
    long t = LD(top);
    if (!t) return 0;
    long n = LD(next_of[t]);
    if (CAS(top, t, n)) {
      assert(LD(owner[t]) == 0); /* a node popped twice */
      ST(owner[t], me);
      return t;
    }
    sched_yield();
  }
}

static void push(long node) {
  ST(owner[node], 0);
  for (;;) {
    long t = LD(top);
    ST(next_of[node], t);
    if (CAS(top, t, node)) return;
    sched_yield();
  }
}

static void* a_thread(void* arg) {
  (void)arg;
  pop(1);
  return NULL;
}

static void* b_thread(void* arg) {
  (void)arg;
  long x = pop(2);
  long y = pop(2);
  if (x) push(x);
  (void)y;
  return NULL;
}

int main(void) {
  /* stack: 1 -> 2 -> 3 */
  for (long i = 1; i <= NODES; i++) next_of[i] = i < NODES ? i + 1 : 0;
  top = 1;
  pthread_t a, b;
  pthread_create(&a, NULL, a_thread, NULL);
  pthread_create(&b, NULL, b_thread, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  /* Every node still in the stack must be free: a node B owns is not. */
  long steps = 0;
  for (long t = LD(top); t && steps <= NODES; t = LD(next_of[t]), steps++) assert(LD(owner[t]) == 0);
  assert(steps <= NODES); /* no cycle */
  return 0;
}
