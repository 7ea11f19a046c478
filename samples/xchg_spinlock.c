/* Correct: a test-and-set spinlock protecting a plain counter.
 *
 * lock() is __atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE) in a loop, which
 * GCC compiles to xchg; unlock() is a release store (a plain mov on x86-64).
 * Three threads each increment the counter twice under the lock, so main
 * always sees 6. The counter is a plain int, its increment a plain load and
 * store. Under ctrl each xchg of a spinning thread is a visible operation,
 * and the holder, always enabled, soon gets its turn and releases the lock:
 * every execution ends. (A spinning xchg writes 1 over 1, memory does not
 * change: ctrl should make the spinner wait for a write to the lock, like a
 * spinning load; see xchg_spinlock_leak.c, where no such write ever comes.) */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 3, ROUNDS = 2 };

static int lock;
static int counter;

static void spin_lock(int *l) {
  while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
  }
}

static void spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; ++i) {
    spin_lock(&lock);
    counter = counter + 1;
    spin_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  printf("counter = %d\n", counter);
  assert(counter == THREADS * ROUNDS);
  return 0;
}
