/* Built with -fsanitize=thread: a lost update through atomics. Each thread
 * reads the counter with one atomic load and writes it back incremented
 * with a separate atomic store: no data race (TSan is silent), but when
 * both load before either stores, one increment is lost and the assertion
 * fails. Found only if ctrl sees TSan's atomics as visible operations. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int counter;

static void* work(void* arg) {
  (void)arg;
  int seen = atomic_load(&counter);
  atomic_store(&counter, seen + 1);
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  printf("counter %d\n", atomic_load(&counter));
  assert(atomic_load(&counter) == 2);
  return 0;
}
