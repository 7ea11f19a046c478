/* LITMUS WRC-sc-outcome
 * The WRC program with an outcome sequential consistency allows (every load
 * sees the write): the assertion fails in every model. TSO-safe.
 *
 * THREAD 0: store x 1
 * THREAD 1: load r0 x; store y 1
 * THREAD 2: load r1 y; load r2 x
 * EXISTS: r0=1 r1=1 r2=1
 * CLASSES: sc=7 tso=7 pso=7
 * EXPECT: sc=yes tso=yes pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1, res_r2;

static void *t0(void *arg) {
  STORE(x, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0;
  LOAD(r0, x);
  STORE(y, 1);
  res_r0 = r0;
  return arg;
}

static void *t2(void *arg) {
  long r1, r2;
  LOAD(r1, y);
  LOAD(r2, x);
  res_r1 = r1;
  res_r2 = r2;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 1 && res_r2 == 1));
  return 0;
}
