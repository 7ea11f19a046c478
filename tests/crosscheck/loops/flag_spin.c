/* A consumer spins on a flag a producer sets after its data; a third thread
 * reads both (a fetch_add of 0 only reads). */
#include <pthread.h>

static int flag, data, r;

static void *producer(void *arg) {
  (void)arg;
  __atomic_store_n(&data, 42, __ATOMIC_RELAXED);
  __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
  return 0;
}

static void *consumer(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
  }
  r = __atomic_load_n(&data, __ATOMIC_RELAXED);
  return 0;
}

static void *other(void *arg) {
  (void)arg;
  __atomic_fetch_add(&data, 0, __ATOMIC_RELAXED);
  (void)__atomic_load_n(&flag, __ATOMIC_RELAXED);
  return 0;
}

int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, consumer, 0);
  pthread_create(&t[1], 0, producer, 0);
  pthread_create(&t[2], 0, other, 0);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  return r != 42;
}
