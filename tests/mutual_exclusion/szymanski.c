/* Szymanski's algorithm (1988) for N threads: a waiting room with an entry
 * door and an exit door, in a single variable per thread:
 *   0 outside, 1 wants to enter, 2 waits in the waiting room,
 *   3 in the doorway, 4 behind the closed door.
 * A thread waits for the entry door to be open (nobody in 3 or 4), stands in
 * the doorway; if someone else wants to enter it waits in the room until some
 * thread has closed the door (4), then closes it itself and waits for every
 * thread with a lower number to leave (0 or 1). On exit it waits until every
 * thread with a higher number that is in the room has seen the door closed
 * (not in 2 or 3). Each condition over all threads is checked one thread at a
 * time (a program has no atomic snapshot of N variables); with two threads
 * each is a single read. Under sequential consistency at most one thread is
 * in the critical section.
 *
 * Under TSO (and PSO) with relaxed accesses a thread's 1, 3 and 4 can all
 * still be in its store buffer when another thread checks the door: both read
 * each other as 0 and both enter. With seq_cst accesses every store is a
 * locked exchange that drains the buffer before the thread's next read. */
#include "harness.h"

static atomic_int flag[MUTEX_MAX_THREADS];

static void acquire(int me) {
  STORE(flag[me], 1);
  /* await (all j: flag[j] in {0, 1, 2}): the entry door is open. */
  for (int j = 0; j < nthreads; ++j)
    if (j != me)
      while (LOAD(flag[j]) >= 3) {
      }
  STORE(flag[me], 3);
  int someone_wants_in = 0;
  for (int j = 0; j < nthreads && !someone_wants_in; ++j)
    if (j != me && LOAD(flag[j]) == 1) someone_wants_in = 1;
  if (someone_wants_in) {
    STORE(flag[me], 2);
    /* await (some j: flag[j] == 4): somebody closed the door. */
    for (int closed = 0; !closed;)
      for (int j = 0; j < nthreads && !closed; ++j)
        if (j != me && LOAD(flag[j]) == 4) closed = 1;
  }
  STORE(flag[me], 4);
  /* await (all j < me: flag[j] in {0, 1}): the lower ones went first. */
  for (int j = 0; j < me; ++j)
    while (LOAD(flag[j]) >= 2) {
    }
}

static void release(int me) {
  /* await (all j > me: flag[j] in {0, 1, 4}): nobody higher is still
   * in the waiting room or the doorway. */
  for (int j = me + 1; j < nthreads; ++j)
    for (;;) {
      int f = LOAD(flag[j]);
      if (f <= 1 || f == 4) break;
    }
  STORE(flag[me], 0);
}

int main(int argc, char **argv) { return mutex_main(argc, argv, MUTEX_MAX_THREADS); }
