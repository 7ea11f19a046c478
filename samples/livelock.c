/* A livelock that is no spin: the worker counts until told to stop, and
 * nobody ever tells it (main joins it instead of setting `stop` first).
 * Natively the program never ends. Every store changes memory, so ctrl
 * cannot tell the loop from a long computation: each execution runs until
 * --max-steps cuts it, and the exploration must then not be called
 * exhaustive. Buggy (a hang ctrl reports as cut executions). */
#include <pthread.h>
#include <stdatomic.h>

static atomic_int stop;
static atomic_long ticks;

static void *worker(void *arg) {
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    atomic_fetch_add_explicit(&ticks, 1, memory_order_relaxed);
  return arg;
}

int main(void) {
  pthread_t w;
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(w, NULL); /* the bug: stop is set only afterwards */
  atomic_store(&stop, 1);
  return 0;
}
