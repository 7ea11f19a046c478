/* Trapped instruction sites: THREADS workers each do N inline locked
 * increments of one global (`lock add` at -O2: a jump-patched site), or with
 * the argument "pointer" through a pointer (`lock add [reg]`, shorter), plus
 * the time the workers took inside the program (clock_gettime is a vDSO
 * call, not a visible operation). Usage: bench_locked THREADS N [pointer] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long counter;
static long *volatile target = &counter;
static long n;
static int through_pointer;

static void *work(void *arg) {
  if (through_pointer) {
    long *p = target;
    for (long i = 0; i < n; i++) __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
  } else {
    for (long i = 0; i < n; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
  }
  return arg;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  n = argc > 2 ? atol(argv[2]) : 100000;
  through_pointer = argc > 3 && strcmp(argv[3], "pointer") == 0;
  if (threads < 1 || threads > 16 || n < 1) return 2;
  pthread_t t[16];
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%ld %ld\n", counter, (long)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)));
  return counter == threads * n ? 0 : 1;
}
