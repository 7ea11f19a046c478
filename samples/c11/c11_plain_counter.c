/* A plain pthread program with no atomics at all: a counter every thread
 * increments under one mutex. --model c11 and rc11 must check it (they used
 * to refuse any program without a libatomic call) and find no bug: every
 * access to the counter is ordered by the lock. Built with ordinary flags. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg) {
  pthread_mutex_lock(&lock);
  counter++;
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
  return 0;
}
