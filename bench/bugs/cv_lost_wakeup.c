/* Bug: a lost wake-up. The waiter tests its predicate before taking the
 * mutex, and the notifier sets it and signals without holding the mutex:
 * a signal sent after the waiter's test but before it waits is lost, and
 * the waiter blocks for ever (a deadlock at the join). The notifier first
 * polls with usleep until the waiter says it started.
 * Depth 1: the notifier's store and signal between the waiter's test and
 * its wait.
 * Retry style: usleep polling on a flag (local progress: a count). */
#include "bug_common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long ready, started;

static void* waiter(void* arg) {
  (void)arg;
  ST(started, 1);
  if (!LD(ready)) { /* BUG: tested outside the mutex */
    pthread_mutex_lock(&m);
    pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

static void* notifier(void* arg) {
  (void)arg;
  long polls = 0;
  while (!LD(started)) {
    usleep(50);
    polls++;
  }
  ST(ready, 1);
  pthread_cond_signal(&cv); /* BUG: not under the mutex */
  return (void*)polls;
}

int main(void) {
  pthread_t w, n;
  pthread_create(&w, NULL, waiter, NULL);
  pthread_create(&n, NULL, notifier, NULL);
  pthread_join(n, NULL);
  pthread_join(w, NULL);
  return 0;
}
