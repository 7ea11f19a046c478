/* Two threads each make N (default 160) seq_cst store/load pairs through
 * libatomic: x = i; read y and y = i; read x (store buffering, repeated).
 * Correct. Its graphs have hundreds of seq_cst events, for the speed of
 * the RC11 consistency check (psc) under --model rc11 and c11: the analysis
 * of one execution must take well under a second, and --time-limit must
 * stop the exploration in the middle of it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int x, y;
static int n = 160;

static void *first(void *arg) {
  for (int i = 1; i <= n; i++) {
    atomic_store(&x, i);
    (void)atomic_load(&y);
  }
  return arg;
}

static void *second(void *arg) {
  for (int i = 1; i <= n; i++) {
    atomic_store(&y, i);
    (void)atomic_load(&x);
  }
  return arg;
}

int main(int argc, char **argv) {
  if (argc > 1) n = atoi(argv[1]);
  pthread_t a, b;
  pthread_create(&a, 0, first, 0);
  pthread_create(&b, 0, second, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
