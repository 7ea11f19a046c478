/* Correct: a test-and-set spinlock protecting a plain counter.
 *
 * lock() is __atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE) in a loop, which
 * GCC compiles to xchg; unlock() is a release store (a plain mov on x86-64).
 * Three threads each increment the counter twice under the lock, so main
 * always sees 6. The counter is a plain int, its increment a plain load and
 * store. Under ctrl a thread spinning on a held lock re-reads the same value
 * with nothing written meanwhile, so it is made to wait for a write to the
 * lock instead of spinning for ever: every execution terminates. */
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
