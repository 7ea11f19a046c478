/* Two threads take an xchg spinlock twice each: the waiting thread re-reads
 * the held lock, which the agent treats as a spin (not run until the lock is
 * written again). */
#include <pthread.h>

static int lock, counter;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; ++i) {
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {
    }
    counter++;
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
  }
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  return counter != 4;
}
