/* Three threads increment with a compare-exchange retry loop: a failed
 * compare-exchange only reads, and its retry, at the same site with nothing
 * written since, runs only when the agent probes the spin. */
#include <pthread.h>

static int x;

static void *worker(void *arg) {
  (void)arg;
  int v = __atomic_load_n(&x, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&x, &v, v + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return 0;
}

int main(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  return x != 3;
}
