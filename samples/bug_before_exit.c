/* Buggy: a thread's assertion fails if it gets that far before another
 * thread ends the process.
 *
 * main starts the worker and returns (with "exit" it calls exit(0), with
 * "_exit" _exit(0)) without joining it: the process ends wherever the
 * worker is. The worker stores (under --model tso and pso the store waits
 * in its store buffer), takes a lock (which waits for that
 * buffer to drain) and fails its assertion. It fails whenever the worker
 * runs those steps before main's exit, which ctrl must try under every
 * model: under tso/pso that takes the flush of the worker's buffer before
 * the exit, under c11/rc11 the worker's steps in place of the exit. Built
 * with libatomic: main's atomic store is a call, which c11/rc11 require. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int started;
static volatile int progress;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  progress = 1;
  pthread_mutex_lock(&lock);
  assert(!"the worker got past its lock before the process ended");
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t;
  atomic_store_explicit(&started, 1, memory_order_relaxed);
  pthread_create(&t, NULL, worker, NULL);
  if (argc > 1 && strcmp(argv[1], "exit") == 0) exit(0);
  if (argc > 1 && strcmp(argv[1], "_exit") == 0) _exit(0);
  return 0;
}
