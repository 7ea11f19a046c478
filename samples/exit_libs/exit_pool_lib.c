/* A worker pool in a shared library that shuts itself down at exit, as
 * libuv's uv_library_shutdown does: its destructor sets `stop` under the
 * lock, signals the worker and joins it. The program links the library, so
 * the library is finalised after ctrl's agent (loaded after it): the
 * destructor's mutex, condition and join calls reach the agent once the
 * execution has ended. Correct: every run prints its line and exits 0. */
#include <pthread.h>

static pthread_t worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stop, started, jobs_done;

static void* run(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!stop) pthread_cond_wait(&wake, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

void pool_start(void) {
  if (started) return;
  started = 1;
  pthread_create(&worker, 0, run, 0);
}

void pool_job(void) {
  pthread_mutex_lock(&lock);
  ++jobs_done;
  pthread_mutex_unlock(&lock);
}

__attribute__((destructor)) static void pool_shutdown(void) {
  if (!started) return;
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(worker, 0);
}
