/* Reduced from the bakery runs (a false hang): a thread walking an array in
 * a loop that re-reads its bound, a global nobody writes, is not spinning.
 *
 * The scanner reads every element of an array nobody writes, re-reading the
 * loop bound `n` at each iteration, then sets `done`; the waiter spins until
 * `done` is set. Correct: in every interleaving the scanner finishes and the
 * waiter leaves its loop, so an exhaustive exploration finds no bug. A spin
 * detector that takes the scanner's second read of `n` (same instruction,
 * same location, nothing written since) for a spin must still let it run
 * before declaring the waiter hung. */
#include <pthread.h>
#include <stdatomic.h>

static int n; /* set before the threads start; a global, as bounds often are */
static atomic_int a[2];
static atomic_int done;

static void *scanner(void *arg) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += atomic_load_explicit(&a[i], memory_order_relaxed);
  atomic_store_explicit(&done, 1, memory_order_relaxed);
  return (char *)arg + sum;
}

static void *waiter(void *arg) {
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
  }
  return arg;
}

int main(int argc, char **argv) {
  (void)argv;
  n = argc + 1; /* 2, unknown to the compiler: the loop re-reads it */
  pthread_t s, w;
  pthread_create(&s, NULL, scanner, NULL);
  pthread_create(&w, NULL, waiter, NULL);
  pthread_join(s, NULL);
  pthread_join(w, NULL);
  return 0;
}
