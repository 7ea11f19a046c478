/* Reduced from the bakery runs (a missed interleaving): a thread walking an
 * array in a loop that re-reads its bound, a global nobody writes, can run
 * to its end before another thread's next step.
 *
 * The scanner reads every element of an array nobody writes, re-reading the
 * loop bound `n` at each iteration, then sets `done`; the checker reads
 * `done` once and asserts that it is still 0. Buggy: the assertion fails
 * when the scanner sets `done` before the checker reads it (natively, most
 * runs). A spin detector that takes the scanner's second read of `n` (same
 * instruction, same location, nothing written since) for a spin, and so
 * never runs it while the checker can run, never explores that order. */
#include <assert.h>
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

static void *checker(void *arg) {
  assert(atomic_load_explicit(&done, memory_order_relaxed) == 0 && "the scanner finished first");
  return arg;
}

int main(int argc, char **argv) {
  (void)argv;
  n = argc + 1; /* 2, unknown to the compiler: the loop re-reads it */
  pthread_t s, c;
  pthread_create(&s, NULL, scanner, NULL);
  pthread_create(&c, NULL, checker, NULL);
  pthread_join(s, NULL);
  pthread_join(c, NULL);
  return 0;
}
