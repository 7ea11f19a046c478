/* The MCS queue lock (Mellor-Crummey and Scott 1991) in the C11 form of
 * CDSChecker's benchmark (cbloomrants' port): a waiter appends its node to
 * the tail with an acq_rel exchange, links itself behind its predecessor and
 * spins on its own gate; the owner hands the lock to its successor by
 * opening the successor's gate, or swings the tail back to empty with a CAS
 * when it has none. Two threads each read and write a plain shared variable
 * under the lock, as in the paper's driver; every atomic is a libatomic call
 * (-fno-inline-atomics).
 *
 * The paper reports no bug in this lock; the buggy version has one put in:
 * the hand-off opens the successor's gate with a relaxed store instead of a
 * release one, so under C11 the successor's critical section is not ordered
 * after its predecessor's: the plain accesses race and an increment can be
 * lost (the assertion). C11_FIXED: a release store. Under SC both are
 * correct. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#ifdef C11_FIXED
#define HANDOFF_ORDER __ATOMIC_RELEASE
#else
#define HANDOFF_ORDER __ATOMIC_RELAXED
#endif

struct mcs_node {
  struct mcs_node *next;
  int gate; /* 1 while the lock is not this node's yet */
};

static struct mcs_node *tail;
static int shared;

static void mcs_lock(struct mcs_node *me) {
  __atomic_store_n(&me->next, NULL, __ATOMIC_RELAXED);
  __atomic_store_n(&me->gate, 1, __ATOMIC_RELAXED);
  struct mcs_node *pred = __atomic_exchange_n(&tail, me, __ATOMIC_ACQ_REL);
  if (pred != NULL) {
    __atomic_store_n(&pred->next, me, __ATOMIC_RELEASE);
    while (__atomic_load_n(&me->gate, __ATOMIC_ACQUIRE)) {
    }
  }
}

static void mcs_unlock(struct mcs_node *me) {
  struct mcs_node *next = __atomic_load_n(&me->next, __ATOMIC_ACQUIRE);
  if (next == NULL) {
    struct mcs_node *expected = me;
    if (__atomic_compare_exchange_n(&tail, &expected, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return;
    /* A successor is linking itself in. */
    while ((next = __atomic_load_n(&me->next, __ATOMIC_ACQUIRE)) == NULL) {
    }
  }
  __atomic_store_n(&next->gate, 0, HANDOFF_ORDER);
}

static void *worker(void *arg) {
  struct mcs_node node;
  mcs_lock(&node);
  int seen = *(volatile int *)&shared;
  *(volatile int *)&shared = seen + 1;
  mcs_unlock(&node);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(shared == 2);
  return 0;
}
