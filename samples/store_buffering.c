/* Store buffering: x = 1; r1 = y || y = 1; r2 = x. Sequential consistency
 * forbids r1 == r2 == 0: three classes, no bug. With seq_cst atomics (the
 * default) x86 forbids it too (seq_cst stores are xchg); with the argument
 * "relaxed" the stores are plain movs and x86-TSO allows it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int x, y;
static int r1, r2;
static int relaxed;

/* Constant orders: the compiler treats an order it cannot see as seq_cst. */
static void store(atomic_int *v) {
  if (relaxed)
    atomic_store_explicit(v, 1, memory_order_relaxed);
  else
    atomic_store_explicit(v, 1, memory_order_seq_cst);
}

static void *left(void *arg) {
  store(&x);
  r1 = atomic_load(&y);
  return arg;
}

static void *right(void *arg) {
  store(&y);
  r2 = atomic_load(&x);
  return arg;
}

int main(int argc, char **argv) {
  relaxed = argc > 1 && strcmp(argv[1], "relaxed") == 0;
  pthread_t a, b;
  pthread_create(&a, NULL, left, NULL);
  pthread_create(&b, NULL, right, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(r1 == 1 || r2 == 1);
  return 0;
}
