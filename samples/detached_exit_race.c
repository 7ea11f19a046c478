/* A detached thread that main's return may cut short.
 *
 * The process exit ends every thread, so it races with the next step of
 * each thread still enabled there. DPOR saw no event of a thread that had
 * not run yet when main returned, found no race, and said "exhaustive: yes,
 * 0 bugs" after one execution; the assertion the detached thread reaches
 * when it runs first was never explored. Now the exit's reversal runs it:
 * the bug is found in the second execution. */
#include <assert.h>
#include <pthread.h>

static volatile int reached;

static void *detached(void *arg) {
  reached = 1;
  assert(!"the detached thread ran before the process exit");
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, detached, NULL);
  pthread_detach(t);
  return 0;
}
