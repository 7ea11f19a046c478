/* Correct: a thread computes for 0.8 s of its own CPU time between two
 * visible operations while two busy processes it starts share its CPU, so
 * the computation takes two to three times as long in wall-clock time.
 *
 * The hang rule counts the thread's CPU time: with --hang-timeout 1.5 this
 * is no hang (the wall-clock rule called it one once the machine was
 * loaded). Everything the loop touches is on the stack or in registers, so
 * it makes no visible operation. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { HOGS = 2 };

/* In integer nanoseconds: a floating-point constant would be a load from
 * .rodata, a visible operation in every round of the loop. */
static long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *worker(void *arg) {
  long nanoseconds = (long)(*(const double *)arg * 1e9);
  // This thread and the busy processes on one CPU: each gets a third.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  pid_t hogs[HOGS];
  for (int i = 0; i < HOGS; i++) {
    hogs[i] = fork();
    if (hogs[i] == 0) {
      for (;;) {
      }
    }
  }
  volatile unsigned long sum = 0;
  long start = thread_cpu_ns();
  while (thread_cpu_ns() - start < nanoseconds)
    for (unsigned long i = 0; i < 100000; i++) sum += i;
  for (int i = 0; i < HOGS; i++) {
    if (hogs[i] > 0) {
      kill(hogs[i], SIGKILL);
      waitpid(hogs[i], NULL, 0);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  static double seconds;
  seconds = argc > 1 ? atof(argv[1]) : 0.8;
  pthread_t t;
  pthread_create(&t, NULL, worker, &seconds);
  pthread_join(t, NULL);
  return 0;
}
