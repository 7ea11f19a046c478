/* A long execution's threads may use every CPU the program may (ctrl's
 * runner spreads them after a few thousand steps), and every execution
 * starts on the runner's one CPU again (the rollback pins them back).
 * The program asks the kernel directly, by system call number: ctrl
 * answers the program's own affinity calls with the mask it started with.
 *
 *   spread_affinity START LONG [STEPS]
 *
 * START: how many CPUs the kernel must say the main thread and each worker
 * may use when they start; LONG: how many the main thread may use once two
 * workers made STEPS (default 4000) atomic increments each. An assertion
 * fails otherwise. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long steps = 4000;
static int start_cpus;
static long counter;

static int kernel_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  long n = syscall(SYS_sched_getaffinity, 0, sizeof set, &set);
  assert(n > 0);
  return CPU_COUNT(&set);
}

static void *work(void *arg) {
  int cpus = kernel_cpus();
  if (cpus != start_cpus) fprintf(stderr, "worker started with %d CPUs, not %d\n", cpus, start_cpus);
  assert(cpus == start_cpus);
  for (long i = 0; i < steps; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
  return arg;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  start_cpus = atoi(argv[1]);
  int long_cpus = atoi(argv[2]);
  if (argc > 3) steps = atol(argv[3]);
  pthread_t t[2];
  pthread_create(&t[0], NULL, work, NULL);
  int cpus = kernel_cpus();
  if (cpus != start_cpus) fprintf(stderr, "main started with %d CPUs, not %d\n", cpus, start_cpus);
  assert(cpus == start_cpus);
  pthread_create(&t[1], NULL, work, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  cpus = kernel_cpus();
  if (cpus != long_cpus) fprintf(stderr, "main ended with %d CPUs, not %d\n", cpus, long_cpus);
  assert(cpus == long_cpus);
  return 0;
}
