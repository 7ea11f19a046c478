/* Correct: a thread polls a flag under a mutex with pthread_cond_timedwait
 * and a deadline taken from the clock (as pbzip2's writer does); another
 * thread sets the flag under the mutex, without signalling.
 *
 * ctrl explores a time-out as immediate, and the deadline on the stack
 * differs every round, so spin detection never sees a repeat. Under DPOR's
 * sticky tail the poller took the mutex back at once after each time-out,
 * the setter stayed parked, and every execution ran until --max-steps
 * ("exhaustive: no"). A thread that begins a timed wait now gives the turn
 * to another awake thread, as a real one sleeps meanwhile. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int done;

static void *poller(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (!done) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 1000000;
    if (deadline.tv_nsec >= 1000000000) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&c, &m, &deadline);
  }
  pthread_mutex_unlock(&m);
  return NULL;
}

static void *setter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  done = 1;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, poller, NULL);
  pthread_create(&b, NULL, setter, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("done\n");
  return 0;
}
