/* Buggy: the spinlock of xchg_spinlock.c released too early.
 *
 * Each thread reads the counter under the lock but releases the lock before
 * storing the incremented value. Another thread can then take the lock, read
 * the same old value, and one increment is lost: the assertion fails. The
 * lock is taken with an inline xchg (__atomic_exchange_n) and released with a
 * release store; the counter is a plain int. Natively the window is a few
 * instructions wide and the program almost always prints 6. */
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
    int v = counter;
    spin_unlock(&lock); /* the bug: the store below is outside the lock */
    counter = v + 1;
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
