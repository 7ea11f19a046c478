/* LITMUS R+po+mfence
 * Test R with an mfence in thread 1, between its store and its load: TSO no
 * longer allows the outcome, but PSO does, by letting thread 0's y reach
 * memory before its x.
 *
 * THREAD 0: store x 1; store y 1
 * THREAD 1: store y 2; mfence; load r0 x
 * EXISTS: y=2 r0=0
 * CLASSES: sc=3 tso=3 pso=4
 * EXPECT: sc=no tso=no pso=yes tso-safe=yes
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
  MFENCE();
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
