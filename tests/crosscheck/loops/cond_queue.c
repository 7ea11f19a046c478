/* Two consumers wait on a condition for items a producer adds one at a
 * time: a wake-up can only follow the signal that woke it. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int items, done;

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; ++i) {
    pthread_mutex_lock(&m);
    items++;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
  }
  return 0;
}

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (items == 0) pthread_cond_wait(&c, &m);
  items--;
  done++;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t p, c1, c2;
  pthread_create(&c1, 0, consumer, 0);
  pthread_create(&c2, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c1, 0);
  pthread_join(c2, 0);
  return done != 2;
}
