/* Buggy: a shared pointer is briefly NULL while it is being replaced.
 *
 * The updater first "unpublishes" the current node (stores NULL) and then
 * publishes the new one. A reader that loads the pointer in between
 * dereferences NULL and crashes. Built with -fno-inline-atomics so the
 * pointer accesses are libatomic calls, which ctrl sees. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

struct node {
  int value;
};

static struct node first = {1};
static struct node second = {2};
static _Atomic(struct node *) current = &first;
static int seen;

static void *updater(void *arg) {
  (void)arg;
  atomic_store(&current, NULL); /* the bug: readers may see this */
  atomic_store(&current, &second);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  struct node *n = atomic_load(&current);
  seen = n->value; /* crashes when n is NULL */
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, updater, NULL);
  pthread_create(&t2, NULL, reader, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("reader saw node %d\n", seen);
  return 0;
}
