/* Buggy, and the bug shows only in the exit status: two workers add their
 * share to a total with a separate load and store (no lock), and main
 * returns 1 when the total is wrong, as a program's self-check does, with
 * no assertion and no crash. In the interleavings where one worker's store
 * overwrites the other's the total is 1 and main returns 1; elsewhere 0.
 * Only --fail-on-exit makes that status a bug (kind exit-status). */
#include <pthread.h>
#include <stdio.h>

static volatile int total;

static void *worker(void *arg) {
  int seen = total; /* load */
  total = seen + 1; /* store: another worker's store may come between */
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  if (total != 2) {
    fprintf(stderr, "total is %d, expected 2\n", total);
    return 1;
  }
  return 0;
}
