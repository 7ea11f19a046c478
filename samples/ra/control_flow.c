/* Control_flow(N) (TRACER, OOPSLA 2018, Table 5; after the control-flow
 * benchmark of Abdulla et al., Optimal DPOR): N threads load x; N threads
 * store 1 into y; one thread stores 1 into z if it read y = 0; one thread
 * stores 1 into x if it read z = 1 and then y = 0. Under --model ra it has
 * 2^N + 2N + 1 weak traces (77 at N = 6): the x store happens in one family
 * of them only, and there each x reader reads it or not. Every access is
 * acquire/release. N is the first argument (default 6). */
#include <pthread.h>
#include <stdlib.h>

#define MAX 16

static int x, y, z;

static void *load_x(void *arg) {
  int a = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  (void)a;
  return arg;
}

static void *store_y(void *arg) {
  __atomic_store_n(&y, 1, __ATOMIC_RELEASE);
  return arg;
}

static void *z_if_no_y(void *arg) {
  if (__atomic_load_n(&y, __ATOMIC_ACQUIRE) == 0) __atomic_store_n(&z, 1, __ATOMIC_RELEASE);
  return arg;
}

static void *x_if_z_and_no_y(void *arg) {
  if (__atomic_load_n(&z, __ATOMIC_ACQUIRE) == 1 && __atomic_load_n(&y, __ATOMIC_ACQUIRE) == 0)
    __atomic_store_n(&x, 1, __ATOMIC_RELEASE);
  return arg;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 6;
  if (n < 1 || n > MAX) return 2;
  pthread_t t[2 * MAX + 2];
  int k = 0;
  for (int i = 0; i < n; i++) {
    pthread_create(&t[k++], 0, load_x, 0);
    pthread_create(&t[k++], 0, store_y, 0);
  }
  pthread_create(&t[k++], 0, z_if_no_y, 0);
  pthread_create(&t[k++], 0, x_if_z_and_no_y, 0);
  for (int i = 0; i < k; i++) pthread_join(t[i], 0);
  return 0;
}
