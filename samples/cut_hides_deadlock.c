/* A lock-order deadlock behind a loop that --max-steps cuts: the first
 * thread counts until the second says go (progress, so no spin), then takes
 * a then b; the second says go, then takes b then a. The first schedule
 * runs the counter alone until the cut; the deadlock (the second holding b,
 * the first a) lies only in schedules reached by reversing races of that
 * cut execution and of the ones after it. Buggy: a deadlock, found in the
 * seventh execution with --max-steps 200 (the six before it are cut). */
#include <pthread.h>
#include <stdatomic.h>

static atomic_int go;
static atomic_long rounds;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

static void *first(void *arg) {
  while (!atomic_load_explicit(&go, memory_order_relaxed))
    atomic_fetch_add_explicit(&rounds, 1, memory_order_relaxed);
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return arg;
}

static void *second(void *arg) {
  atomic_store_explicit(&go, 1, memory_order_relaxed);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t f, s;
  pthread_create(&f, NULL, first, NULL);
  pthread_create(&s, NULL, second, NULL);
  pthread_join(f, NULL);
  pthread_join(s, NULL);
  return 0;
}
