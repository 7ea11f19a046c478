/* Buggy: the ABA problem of a lock-free (Treiber) stack.
 *
 * pop() reads the top node and its successor, then installs the successor
 * with a compare-and-swap on the top pointer. The CAS only checks that the
 * top is still the same node, not that the stack is unchanged, so this
 * interleaving breaks it (nodes A, B, C; the stack is A -> B -> C):
 *
 *   T1 pop:  reads top = A and A->next = B ... and is preempted;
 *   T2 pop:  takes A                         (stack B -> C)
 *   T2 pop:  takes B, and keeps it           (stack C)
 *   T2 push: gives A back, A->next = C       (stack A -> C)
 *   T1 pop:  CAS(top, A, B) succeeds, since top is A again: T1 takes A and
 *            installs B as the top (stack B -> C), but B belongs to T2.
 *
 * main then finds B, which T2 holds, in the stack: the assertion fails.
 * Every other interleaving leaves exactly C in the stack. Nodes come from a
 * fixed array and A is simply pushed again: no memory is freed or reused.
 * The CAS is inline (lock cmpxchg), the loads of top and next are plain movs:
 * built with ordinary flags. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

struct node {
  struct node *next;
  char name;
};

static struct node nodes[3] = {{&nodes[1], 'A'}, {&nodes[2], 'B'}, {NULL, 'C'}};
static struct node *top = &nodes[0];

static struct node *pop(void) {
  struct node *old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
  for (;;) {
    if (old == NULL) return NULL;
    struct node *next = __atomic_load_n(&old->next, __ATOMIC_RELAXED);
    /* On failure `old` is reloaded with the current top. */
    if (__atomic_compare_exchange_n(&top, &old, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return old;
  }
}

static void push(struct node *n) {
  struct node *old = __atomic_load_n(&top, __ATOMIC_RELAXED);
  do {
    __atomic_store_n(&n->next, old, __ATOMIC_RELAXED);
  } while (!__atomic_compare_exchange_n(&top, &old, n, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

static struct node *taken_by_t1, *kept_by_t2;

static void *t1_pop_once(void *arg) {
  (void)arg;
  taken_by_t1 = pop();
  return NULL;
}

static void *t2_pop_pop_push(void *arg) {
  (void)arg;
  struct node *a = pop();
  kept_by_t2 = pop();
  push(a);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, t1_pop_once, NULL);
  pthread_create(&t2, NULL, t2_pop_pop_push, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int left = 0;
  for (struct node *n; (n = pop()) != NULL; ++left) {
    printf("left in the stack: %c\n", n->name);
    assert(n != taken_by_t1 && n != kept_by_t2 && "a node some thread popped is still in the stack");
  }
  assert(left == 1);
  return 0;
}
