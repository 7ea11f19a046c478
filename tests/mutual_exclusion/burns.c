/* Burns' algorithm (Burns and Lynch, 1980) for N threads, with one bit per
 * thread, as in Lynch's "Distributed Algorithms" (10.6):
 *   L: flag[i] := 0; for j < i: if flag[j] = 1 goto L
 *      flag[i] := 1; for j < i: if flag[j] = 1 goto L
 *   M: for j > i: if flag[j] = 1 goto M
 *      critical section; flag[i] := 0
 * A thread gives way to every lower-numbered one that wants in, raises its
 * flag, checks the lower ones again, then waits for the higher ones to lower
 * theirs. Under sequential consistency at most one thread is in the critical
 * section.
 *
 * Under TSO (and PSO) with relaxed accesses a thread's raised flag can still
 * be in its store buffer when the other thread checks it: each reads the
 * other's flag as 0 and both enter. With seq_cst accesses every store is a
 * locked exchange that drains the buffer before the thread's next read. */
#include "harness.h"

static atomic_int flag[MUTEX_MAX_THREADS];

/* 1 when some thread numbered below `me` has its flag up. */
static int lower_flag_up(int me) {
  for (int j = 0; j < me; ++j)
    if (LOAD(flag[j])) return 1;
  return 0;
}

static void acquire(int me) {
  for (;;) {
    STORE(flag[me], 0);
    if (lower_flag_up(me)) continue;
    STORE(flag[me], 1);
    if (!lower_flag_up(me)) break;
  }
  for (int j = me + 1; j < nthreads; ++j)
    if (LOAD(flag[j])) j = me; /* goto M: scan the higher ones again */
}

static void release(int me) { STORE(flag[me], 0); }

int main(int argc, char **argv) { return mutex_main(argc, argv, MUTEX_MAX_THREADS); }
