/* A waiter that checks its flag outside the lock and waits with `if`: the
 * signal can come first and be lost (a deadlock both modes must find). */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

static void *waiter(void *arg) {
  (void)arg;
  if (!__atomic_load_n(&ready, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&m);
    pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
  }
  return 0;
}

static void *signaller(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  __atomic_store_n(&ready, 1, __ATOMIC_RELAXED);
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, waiter, 0);
  pthread_create(&t2, 0, signaller, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
