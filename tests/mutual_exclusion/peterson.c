/* Peterson's algorithm (1981) for two threads.
 *
 * A thread raises its flag, then gives the turn away, then waits while the
 * other thread's flag is up and the turn is the other's. Under sequential
 * consistency at most one thread is in the critical section: of two
 * contenders, the one that wrote the turn last waits.
 *
 * Under TSO (and PSO) with relaxed accesses both stores can still be in the
 * thread's store buffer when it reads the other's flag: each thread reads the
 * other's flag as 0 and both enter. With seq_cst accesses the stores are
 * locked exchanges that drain the buffer before the reads. */
#include "harness.h"

static atomic_int flag[2];
static atomic_int turn;

static void acquire(int me) {
  int other = 1 - me;
  STORE(flag[me], 1);
  STORE(turn, other);
  while (LOAD(flag[other]) && LOAD(turn) == other) {
  }
}

static void release(int me) { STORE(flag[me], 0); }

int main(int argc, char **argv) { return mutex_main(argc, argv, 2); }
