/* Correct, and slow: one execution makes EVENTS visible operations (a
 * thread increments a shared counter) and then computes natively for
 * SECONDS of CPU time.
 *
 *   long_execution EVENTS SECONDS
 *
 * Used to check that Ctrl-C, SIGTERM and --time-limit stop ctrl within a
 * second in the middle of such an execution, and while ctrl analyses a long
 * one, with the report. Prints "events done" and "computed" when each
 * part is over (seen with --show-output). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_long counter;

struct work {
  long events;
  double seconds;
};

/* In integer nanoseconds: a floating-point constant would be a load from
 * .rodata, a visible operation in every round of the loop. */
static long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *worker(void *arg) {
  const struct work *w = arg;
  long events = w->events;
  long nanoseconds = (long)(w->seconds * 1e9);
  for (long i = 0; i < events; i++) atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
  printf("events done\n");
  fflush(stdout);
  volatile unsigned long sum = 0;
  long start = thread_cpu_ns();
  while (thread_cpu_ns() - start < nanoseconds)
    for (unsigned long i = 0; i < 100000; i++) sum += i;
  return NULL;
}

int main(int argc, char **argv) {
  static struct work w;
  w.events = argc > 1 ? atol(argv[1]) : 1000;
  w.seconds = argc > 2 ? atof(argv[2]) : 0;
  pthread_t t;
  pthread_create(&t, NULL, worker, &w);
  pthread_join(t, NULL);
  printf("computed\n");
  fflush(stdout);
  return 0;
}
