/* Load buffering with relaxed atomics: each thread reads one location, then
 * writes 1 to the other. r1 == 1 && r2 == 1 needs each load to read a store
 * that comes after the other load in its thread: allowed by C11 (a
 * (po U rf) cycle), forbidden by RC11, SC and x86-TSO. So the assertion
 * fails under --model c11 only. Built with -fno-inline-atomics. */
#include <assert.h>
#include <pthread.h>

static int x, y, r1, r2;

static void *t1(void *arg) {
  r1 = __atomic_load_n(&x, __ATOMIC_RELAXED);
  __atomic_store_n(&y, 1, __ATOMIC_RELAXED);
  return arg;
}

static void *t2(void *arg) {
  r2 = __atomic_load_n(&y, __ATOMIC_RELAXED);
  __atomic_store_n(&x, 1, __ATOMIC_RELAXED);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r1 == 1 && r2 == 1));
  return 0;
}
