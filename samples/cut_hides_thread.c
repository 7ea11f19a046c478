/* The first schedule is cut by --max-steps: the waiter counts (progress, so
 * no spin) until the stopper sets `stop`, and the stopper never runs in that
 * schedule. The cut execution still has races to reverse: the stopper's
 * first step could come before the waiter's latest ones.
 *
 * Buggy: the stopper checks that it stopped the waiter early (fewer than 5
 * rounds), which fails whenever it runs late. The first execution is cut
 * with the waiter alone (about 100 rounds with --max-steps 200); the second
 * runs the stopper's start as the last step before the cut (cut again); the
 * third runs its store before the waiter's latest read of `stop`, and its
 * check fails: 3 executions. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int stop;
static atomic_long rounds;

static void *waiter(void *arg) {
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    atomic_fetch_add_explicit(&rounds, 1, memory_order_relaxed);
  return arg;
}

static void *stopper(void *arg) {
  atomic_store_explicit(&stop, 1, memory_order_relaxed);
  assert(atomic_load_explicit(&rounds, memory_order_relaxed) < 5 && "the waiter was stopped late");
  return arg;
}

int main(void) {
  pthread_t w, s;
  pthread_create(&w, NULL, waiter, NULL);
  pthread_create(&s, NULL, stopper, NULL);
  pthread_join(w, NULL);
  pthread_join(s, NULL);
  return 0;
}
