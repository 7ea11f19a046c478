/* LITMUS MP-sc-outcome
 * Message passing, asserting an outcome sequential consistency already
 * allows: the reader misses the flag but sees the data (it read y before the
 * writer started and x after it finished). The assertion fails in every
 * model; the program is still TSO-safe.
 *
 * THREAD 0: store x 1; store y 1
 * THREAD 1: load r0 y; load r1 x
 * EXISTS: r0=0 r1=1
 * CLASSES: sc=3 tso=3 pso=4
 * EXPECT: sc=yes tso=yes pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  STORE(x, 1);
  STORE(y, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0, r1;
  LOAD(r0, y);
  LOAD(r1, x);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 0 && res_r1 == 1));
  return 0;
}
