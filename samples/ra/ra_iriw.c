/* IRIW with release stores and acquire loads: two writers, two readers that
 * read x and y in opposite orders. The readers disagreeing on the order of
 * the two stores (a=1 b=0, c=1 d=0) is allowed by release-acquire (it is
 * not multi-copy atomic) but impossible under SC and x86-TSO: --model ra
 * finds the assertion, --model sc and tso do not. Built with
 * -fno-inline-atomics. */
#include <assert.h>
#include <pthread.h>

static int x, y, a, b, c, d;

static void *wx(void *arg) {
  __atomic_store_n(&x, 1, __ATOMIC_RELEASE);
  return arg;
}
static void *wy(void *arg) {
  __atomic_store_n(&y, 1, __ATOMIC_RELEASE);
  return arg;
}
static void *rxy(void *arg) {
  a = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  b = __atomic_load_n(&y, __ATOMIC_ACQUIRE);
  return arg;
}
static void *ryx(void *arg) {
  c = __atomic_load_n(&y, __ATOMIC_ACQUIRE);
  d = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  return arg;
}

int main(void) {
  pthread_t t[4];
  pthread_create(&t[0], 0, wx, 0);
  pthread_create(&t[1], 0, wy, 0);
  pthread_create(&t[2], 0, rxy, 0);
  pthread_create(&t[3], 0, ryx, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  assert(!(a == 1 && b == 0 && c == 1 && d == 0));
  return 0;
}
