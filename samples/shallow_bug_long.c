/* Bug: a one-preemption atomicity violation in an execution of about 330
 * steps (issue 22, item 18). Two workers each record 80 units of work in a
 * shared statistics counter (atomic adds: they race with each other), then
 * claim a job by checking `owner` and setting it in two steps instead of a
 * compare-exchange, then record 80 more units. If the second worker checks
 * `owner` between the first one's check and its store, both claim the job
 * and the assertion in main fails.
 * One preemption: a worker preempted between its check and its store. A
 * depth-first search (DPOR) reverses the races of the last work updates
 * first: the interleavings of the 160 updates after the claim are far too
 * many for it ever to come back to the claim. Every access is a libatomic
 * call (built with -fno-inline-atomics), so the program is data-race free. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define WORK 80
static long work, owner, claims;

static void* worker(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < WORK; i++) __atomic_fetch_add(&work, 1, __ATOMIC_SEQ_CST);
  int mine = 0;
  if (__atomic_load_n(&owner, __ATOMIC_SEQ_CST) == 0) { /* BUG: check, then act */
    __atomic_store_n(&owner, id, __ATOMIC_SEQ_CST);
    mine = 1;
  }
  for (int i = 0; i < WORK; i++) __atomic_fetch_add(&work, 1, __ATOMIC_SEQ_CST);
  if (mine) __atomic_fetch_add(&claims, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  long n = __atomic_load_n(&claims, __ATOMIC_SEQ_CST);
  printf("work %ld, claims %ld\n", __atomic_load_n(&work, __ATOMIC_SEQ_CST), n);
  assert(n == 1);
  return 0;
}
