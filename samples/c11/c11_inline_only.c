/* Atomics the compiler inlines (built at -O2 without -fno-inline-atomics):
 * no libatomic call, so ctrl cannot see their memory order. --model c11 and
 * rc11 must refuse it (exit 2) and say how to rebuild it. Correct under
 * every model. */
#include <assert.h>
#include <pthread.h>

static int counter;

static void *worker(void *arg) {
  __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(__atomic_load_n(&counter, __ATOMIC_RELAXED) == 2);
  return 0;
}
