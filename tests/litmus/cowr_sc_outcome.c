/* LITMUS CoWR-sc-outcome
 * The CoWR program with an outcome sequential consistency allows: thread 0's
 * store reaches memory, thread 1's overwrites it, and only then does thread
 * 0 read x back, getting thread 1's 2. The assertion fails in every model;
 * under TSO and PSO this needs the load, which could have been forwarded
 * from the buffer, to run after both flushes.
 *
 * THREAD 0: store x 1; load r0 x
 * THREAD 1: store x 2
 * EXISTS: r0=2 x=2
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=yes tso=yes pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0;

static void *t0(void *arg) {
  long r0;
  STORE(x, 1);
  LOAD(r0, x);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  STORE(x, 2);
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && x == 2));
  return 0;
}
