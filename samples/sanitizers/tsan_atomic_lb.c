/* Built with -fsanitize=thread: load buffering where one side synchronises.
 * t2 writes `data` (plain) and then releases `y`; t1 acquires `y` and reads
 * `data` only when it saw y == 1, so the plain accesses never race. Under
 * --model c11 t1 may read y == 1 promised by t2's store before t2 has run
 * it (t2 reads x == 1 from t1's later store): TSan, which sees the
 * operations in the order they ran, would miss that synchronisation and
 * report a false race. ctrl turns TSan's reports off under the models that
 * choose what reads read (c11, rc11, ra) and checks races itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int x, y;
static int data, r1, r2, seen;

static void* t1(void* arg) {
  (void)arg;
  r1 = atomic_load_explicit(&y, memory_order_acquire);
  atomic_store_explicit(&x, 1, memory_order_relaxed);
  if (r1) seen = data;
  return 0;
}

static void* t2(void* arg) {
  (void)arg;
  r2 = atomic_load_explicit(&x, memory_order_relaxed);
  data = 1;
  atomic_store_explicit(&y, 1, memory_order_release);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("r1 %d r2 %d seen %d\n", r1, r2, seen);
  return 0;
}
