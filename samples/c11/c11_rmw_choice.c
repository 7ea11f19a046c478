/* For the agent's half of --model c11 (tests/unit/C11Agent_test.cpp): a
 * fetch-add and a compare-exchange whose read values a plan's Choices
 * decide; main then loads what memory and the compare-exchange's `expected`
 * hold, as atomic loads whose events show the values. Under SC: x ends 6,
 * y 7, expected 0 (expected_seen starts at 5, which its store's event logs
 * as the bytes it replaced). Built with -fno-inline-atomics. */
#include <pthread.h>

static unsigned x = 1, y, expected_seen = 5;

static void *worker(void *arg) {
  __atomic_fetch_add(&x, 5, __ATOMIC_RELAXED);
  unsigned e = 0;
  __atomic_compare_exchange_n(&y, &e, 7, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  __atomic_store_n(&expected_seen, e, __ATOMIC_RELAXED);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  unsigned fx = __atomic_load_n(&x, __ATOMIC_RELAXED);
  unsigned fy = __atomic_load_n(&y, __ATOMIC_RELAXED);
  unsigned fe = __atomic_load_n(&expected_seen, __ATOMIC_RELAXED);
  return fx == 6 && fy == 7 && fe == 0 ? 0 : 1;
}
