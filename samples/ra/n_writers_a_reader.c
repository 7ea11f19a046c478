/* N_writers_a_reader(N) (TRACER, OOPSLA 2018, Fig. 8 / Table 4): N threads
 * each store their id into x with a release store, one thread loads x with
 * an acquire load. Under --model ra it has N+1 weak traces (the reader reads
 * the initial value or one of the N stores), where exploring every
 * coherence order runs (N+1)! executions. N is the first argument (default
 * 10). Built with -fno-inline-atomics. */
#include <pthread.h>
#include <stdlib.h>

#define MAX 64

static int x;

static void *writer(void *arg) {
  __atomic_store_n(&x, (int)(long)arg, __ATOMIC_RELEASE);
  return 0;
}

static void *reader(void *arg) {
  int a = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  (void)a;
  return arg;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  if (n < 1 || n > MAX) return 2;
  pthread_t t[MAX + 1];
  for (long i = 0; i < n; i++) pthread_create(&t[i], 0, writer, (void *)(i + 1));
  pthread_create(&t[n], 0, reader, 0);
  for (int i = 0; i <= n; i++) pthread_join(t[i], 0);
  return 0;
}
