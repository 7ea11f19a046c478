/* Buggy: a path that returns with the spinlock still held.
 *
 * Two threads each try twice to take a ticket, under the xchg spinlock of
 * xchg_spinlock.c. Only two tickets exist: a thread that finds none left
 * returns at once -- and forgets to release the lock. If that thread is not
 * the last one to want the lock, the other thread spins on it for ever
 * (natively it usually is the last: the first thread takes both tickets
 * before the second starts, and the program ends).
 *
 * The spinning thread's xchg writes 1 over 1 each time: memory does not
 * change, so ctrl should see it re-read the lock and make it wait for a
 * write that can never come: a hang. For now ctrl counts the xchg as a
 * write: the spin goes on until --max-steps cuts the execution, and no bug
 * is reported (its e2e test is disabled until that changes). */
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 2, TRIES = 2, TICKETS = 2 };

static int lock;
static int tickets_taken;

static void spin_lock(int *l) {
  while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
  }
}

static void spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < TRIES; ++i) {
    spin_lock(&lock);
    if (tickets_taken == TICKETS) return NULL; /* the bug: the lock is still held */
    tickets_taken = tickets_taken + 1;
    spin_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  printf("tickets taken: %d\n", tickets_taken);
  return 0;
}
