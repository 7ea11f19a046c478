/* Redundant_co(N) (TRACER, OOPSLA 2018, Fig. 8 / Table 4): two threads each
 * store 1 into x N times (release), a third loads x twice (acquire). Under
 * --model ra it has 3N^2+3N+1 weak traces (331 at N = 10), where exploring
 * every coherence order runs O(N!) executions. N is the first argument
 * (default 10). Built with -fno-inline-atomics. */
#include <pthread.h>
#include <stdlib.h>

static int x, n = 10;

static void *writer(void *arg) {
  for (int i = 0; i < n; i++) __atomic_store_n(&x, 1, __ATOMIC_RELEASE);
  return arg;
}

static void *reader(void *arg) {
  int a = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  int b = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  (void)a, (void)b;
  return arg;
}

int main(int argc, char **argv) {
  if (argc > 1) n = atoi(argv[1]);
  pthread_t t[3];
  pthread_create(&t[0], 0, writer, 0);
  pthread_create(&t[1], 0, writer, 0);
  pthread_create(&t[2], 0, reader, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  return 0;
}
