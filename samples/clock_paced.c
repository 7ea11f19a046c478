/* Buggy (a lost update), and paced by the clock: each worker, on each
 * round, reads the monotonic clock and, when at least pace_us microseconds
 * (3) have passed since its last report, takes a lock to count one more report.
 * How many reports an execution makes, and so its visible operations,
 * depends on how fast it ran: under real time a saved trace did not replay
 * (nor did an execution continued from a live checkpoint follow its plan).
 * Under ctrl the program reads virtual time (agent/VirtualClock.h), which
 * depends on the schedule alone. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

enum { ROUNDS = 200 };

/* Read once a round: a visible operation (under --visible all) that no
 * other thread writes, so that each round takes a step's time. */
static volatile long pace_us = 3;

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int reports;
static int counter;

static long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void *worker(void *arg) {
  (void)arg;
  long last = now_us();
  for (int i = 0; i < ROUNDS; i++) {
    long now = now_us();
    if (now - last >= pace_us) {
      last = now;
      pthread_mutex_lock(&report_lock);
      reports++;
      pthread_mutex_unlock(&report_lock);
    }
  }
  int seen = __atomic_load_n(&counter, __ATOMIC_RELAXED);
  __atomic_store_n(&counter, seen + 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("%d reports\n", reports);
  assert(counter == 2);
  return 0;
}
