/* A library whose constructor starts a thread, before ctrl's agent is
 * initialised (libraries the program links are initialised before the
 * preloaded agent), and whose destructor stops and joins it. The agent does
 * not know that thread: it waits on the real condition variable, so the
 * destructor's signal must reach it. */
#include <pthread.h>

static pthread_t worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stop, running;

static void* run(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!stop) pthread_cond_wait(&wake, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

__attribute__((constructor)) static void early_start(void) {
  running = 1;
  pthread_create(&worker, 0, run, 0);
}

__attribute__((destructor)) static void early_stop(void) {
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(worker, 0);
}

int early_running(void) { return running; }
