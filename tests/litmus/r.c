/* LITMUS R
 * Test R: thread 0 writes x then y; thread 1 overwrites y and reads x. y
 * ending as 2 puts thread 1's store after thread 0's, and under SC its later
 * load then sees x=1. Under TSO thread 1's store waits in its buffer while
 * its load reads x=0, and reaches memory last.
 *
 * THREAD 0: store x 1; store y 1
 * THREAD 1: store y 2; load r0 x
 * EXISTS: y=2 r0=0
 * CLASSES: sc=3 tso=4 pso=4
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0;

static void *t0(void *arg) {
  STORE(x, 1);
  STORE(y, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0;
  STORE(y, 2);
  LOAD(r0, x);
  res_r0 = r0;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(y == 2 && res_r0 == 0));
  return 0;
}
