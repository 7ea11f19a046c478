/* Correct under fair scheduling of yields: a waiter retries with
 * sched_yield (counting its rounds: local progress, so spin detection does
 * not hold it back) until a worker has made N steps of progress, and checks
 * that, once the worker has begun (from then on its every step is
 * progress), it never sees the same progress in 4 rounds in a row. A fair
 * scheduler lets a yielding thread run at most two rounds while the thread
 * it waits for stays idle (analyses/FairYields.h); an unfair one runs the
 * waiter on and on: with DPOR's sticky tail until --max-steps, with random
 * long enough streaks that the assertion fails.
 *   yield_fair [N [sched|thrd]]   (default 3, sched_yield)
 * thrd: C11 thrd_yield, which calls libc's internal sched_yield (the
 * agent interposes it as a yield of its own). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static void yield_sched(void) { sched_yield(); }
static void yield_thrd(void) { thrd_yield(); }
static void (*yield)(void) = yield_sched;

static long n = 3;
static long progress;

static void* worker(void* arg) {
  (void)arg;
  /* After its first store, each of its steps is progress. */
  long limit = n;
  for (long i = 1; i <= limit; i++) __atomic_store_n(&progress, i, __ATOMIC_SEQ_CST);
  return NULL;
}

static void* waiter(void* arg) {
  (void)arg;
  long last = -1, same = 0, rounds = 0, limit = n;
  for (;;) {
    long p = __atomic_load_n(&progress, __ATOMIC_SEQ_CST);
    if (p == limit) break;
    if (p == last && p > 0) {
      same++;
      assert(same < 3);
    } else {
      same = 0;
      last = p;
    }
    rounds++;
    yield();
  }
  return (void*)rounds;
}

int main(int argc, char** argv) {
  if (argc > 1) n = atol(argv[1]);
  if (argc > 2 && strcmp(argv[2], "thrd") == 0) yield = yield_thrd;

  pthread_t a, b;
  /* The worker first: a waiter that started before it existed could run
   * rounds while main, not the worker, was the thread to wait for. */
  pthread_create(&b, NULL, worker, NULL);
  pthread_create(&a, NULL, waiter, NULL);
  pthread_join(b, NULL);
  pthread_join(a, NULL);
  return 0;
}
