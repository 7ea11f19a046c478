/* Lamport's bakery algorithm (1974) for N threads.
 *
 * A thread takes a ticket one above the largest it sees (announcing with
 * `choosing` that it is taking one), then, for every other thread, waits
 * until that thread is not choosing and holds no ticket or a larger one
 * (ties broken by thread number). Under sequential consistency at most one
 * thread is in the critical section.
 *
 * Under TSO (and PSO) with relaxed accesses a thread's ticket can still be in
 * its store buffer when another thread, having taken its own ticket, looks at
 * it: two threads both read the other's ticket as 0 and both enter. With
 * seq_cst accesses every store is a locked exchange that drains the buffer
 * before the thread's next read. */
#include "harness.h"

static atomic_int choosing[MUTEX_MAX_THREADS];
static atomic_int number[MUTEX_MAX_THREADS];

static void acquire(int me) {
  STORE(choosing[me], 1);
  int largest = 0;
  for (int j = 0; j < nthreads; ++j) {
    int n = LOAD(number[j]);
    if (n > largest) largest = n;
  }
  int mine = largest + 1;
  STORE(number[me], mine);
  STORE(choosing[me], 0);
  for (int j = 0; j < nthreads; ++j) {
    if (j == me) continue;
    while (LOAD(choosing[j])) {
    }
    for (;;) {
      int n = LOAD(number[j]);
      /* (n, j) < (mine, me): j is served first. */
      if (n == 0 || n > mine || (n == mine && j > me)) break;
    }
  }
}

static void release(int me) { STORE(number[me], 0); }

int main(int argc, char **argv) { return mutex_main(argc, argv, MUTEX_MAX_THREADS); }
