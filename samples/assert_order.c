/* Buggy: an order violation hidden by a sleep.
 *
 * The consumer assumes the initialiser has run because it sleeps a little
 * first; nothing actually orders the two threads. Every access is under the
 * mutex, so there is no data race, yet when the consumer takes the lock
 * first its assertion fails. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int initialised;
static int config;
static int used;

static void *initialiser(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  config = 42;
  initialised = 1;
  pthread_mutex_unlock(&m);
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  usleep(500); /* "the initialiser is surely done by now": the bug */
  pthread_mutex_lock(&m);
  assert(initialised);
  used = config;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, initialiser, NULL);
  pthread_create(&t2, NULL, consumer, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("consumer used config %d\n", used);
  return 0;
}
