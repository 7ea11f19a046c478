/* Two workers take turns on a mutex-protected counter many times while the
 * main thread reads it once: an assertion fails in the interleavings where
 * main reads 6 or more (both workers still running, so at the bug they are parked
 * wherever their last hand-off left them). A test of user-level hand-offs
 * (agent/Runtime.h): the report at the bug, each thread's stack included,
 * must be the one kernel hand-offs give. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *worker(void *arg) {
  for (int i = 0; i < 20; i++) {
    pthread_mutex_lock(&m);
    count++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_mutex_lock(&m);
  int seen = count;
  pthread_mutex_unlock(&m);
  assert(seen < 6);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
