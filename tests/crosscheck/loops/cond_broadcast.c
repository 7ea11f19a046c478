/* Two waiters, one broadcast. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int go, seen;

static void *waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (!go) pthread_cond_wait(&c, &m);
  seen++;
  pthread_mutex_unlock(&m);
  return 0;
}

static void *starter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  go = 1;
  pthread_cond_broadcast(&c);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, waiter, 0);
  pthread_create(&t[1], 0, waiter, 0);
  pthread_create(&t[2], 0, starter, 0);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  return seen != 2;
}
