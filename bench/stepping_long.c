/* The stepping session's long execution (docs/PERFORMANCE.md, "Stepping"):
 * two threads take one mutex ROUNDS times each (33333 by default: about
 * 266,000 visible operations), then an assertion that always fails, so that
 * `ctrl attach` saves the execution as a trace to step through. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int rounds = 33333;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter != 2L * rounds); /* always fails: the trace is the point */
  return 0;
}
