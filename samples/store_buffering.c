/* Store buffering with seq_cst atomics: x = 1; r1 = y || y = 1; r2 = x.
 * Sequential consistency (and x86, since seq_cst stores are xchg) forbids
 * r1 == r2 == 0: three classes, no bug. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x, y;
static int r1, r2;

static void *left(void *arg) {
  atomic_store(&x, 1);
  r1 = atomic_load(&y);
  return arg;
}

static void *right(void *arg) {
  atomic_store(&y, 1);
  r2 = atomic_load(&x);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, left, NULL);
  pthread_create(&b, NULL, right, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(r1 == 1 || r2 == 1);
  return 0;
}
