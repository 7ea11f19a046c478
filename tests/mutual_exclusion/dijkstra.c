/* Dijkstra's algorithm (1965, "Solution of a problem in concurrent
 * programming control") for N threads:
 *   Li0: b[i] := false
 *   Li1: if k != i then begin
 *   Li2:   c[i] := true;
 *   Li3:   if b[k] then k := i;
 *          goto Li1 end
 *        else begin
 *   Li4:   c[i] := false;
 *          for j != i: if not c[j] then goto Li1 end;
 *        critical section; c[i] := true; b[i] := true
 * A thread that wants in (b false) takes the turn k when its holder is not
 * interested, and enters once it has the turn and no other thread is at Li4
 * (c false). Under sequential consistency at most one thread is in the
 * critical section: of two threads past Li4, the later one reads the
 * earlier one's c as false.
 *
 * Under TSO (and PSO) with relaxed accesses b[i] and c[i] := false can still
 * be in the store buffer when another thread reads them: the other takes the
 * turn, reads this thread's c as true, and both enter. With seq_cst accesses
 * every store is a locked exchange that drains the buffer before the thread's
 * next read. */
#include "harness.h"

/* true: not interested (b), not at Li4 (c). */
static atomic_int b[MUTEX_MAX_THREADS] = {1, 1, 1, 1};
static atomic_int c[MUTEX_MAX_THREADS] = {1, 1, 1, 1};
static atomic_int k;

static void acquire(int i) {
  STORE(b[i], 0);
  for (;;) {
    if (LOAD(k) != i) {
      STORE(c[i], 1);
      if (LOAD(b[LOAD(k)])) STORE(k, i);
      continue;
    }
    STORE(c[i], 0);
    int other_at_li4 = 0;
    for (int j = 0; j < nthreads && !other_at_li4; ++j)
      if (j != i && !LOAD(c[j])) other_at_li4 = 1;
    if (!other_at_li4) return;
  }
}

static void release(int i) {
  STORE(c[i], 1);
  STORE(b[i], 1);
}

int main(int argc, char **argv) { return mutex_main(argc, argv, MUTEX_MAX_THREADS); }
