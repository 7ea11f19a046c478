/* Bug: a test-and-set lock with exponential backoff (usleep) whose holder
 * releases the lock before it writes the counter it read under it, so an
 * increment can be lost. Two workers, 3 increments each; main asserts 6.
 * Depth 2: a worker must take the lock and read the counter between the
 * other's release and its late store.
 * Retry style: CAS retry loop with usleep backoff (local progress). */
#include "bug_common.h"

#define ROUNDS 3
static long lock_word, counter;

static void lock(void) {
  long backoff = 1;
  while (!CAS(lock_word, 0, 1)) {
    usleep(backoff);
    if (backoff < 64) backoff *= 2;
  }
}

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    lock();
    long c = LD(counter);
    ST(lock_word, 0); /* BUG: released before the store below */
    ST(counter, c + 1);
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(LD(counter) == 2 * ROUNDS);
  return 0;
}
