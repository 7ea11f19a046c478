/* Built with -fsanitize=thread: a correct program with C11 atomics. A flag
 * handed over with release/acquire publishes `data` (a plain int), and a
 * spinlock taken with atomic_exchange protects `total`. TSan turns each
 * atomic into a call into its runtime (__tsan_atomic32_exchange ...), which
 * ctrl's agent binds to its own wrappers: each atomic is a visible operation
 * with its order (DPOR interleaves the lock and the flag: 5 executions), and
 * TSan still performs it, so its happens-before orders `data` and `total`
 * (no false race). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, lock;
static int data, total;

static void spin_lock(void) {
  while (atomic_exchange_explicit(&lock, 1, memory_order_acquire)) {
  }
}

static void spin_unlock(void) { atomic_store_explicit(&lock, 0, memory_order_release); }

static void* producer(void* arg) {
  (void)arg;
  data = 42;
  atomic_store_explicit(&ready, 1, memory_order_release);
  spin_lock();
  ++total;
  spin_unlock();
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, producer, 0);
  spin_lock();
  ++total;
  spin_unlock();
  while (!atomic_load_explicit(&ready, memory_order_acquire)) {
  }
  assert(data == 42);
  pthread_join(t, 0);
  assert(total == 2);
  printf("data %d total %d\n", data, total);
  return 0;
}
