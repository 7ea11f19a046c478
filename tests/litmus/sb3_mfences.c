/* LITMUS SB3+mfences
 * The three-thread store-buffering ring with an mfence in every thread:
 * forbidden in every model.
 *
 * THREAD 0: store x 1; mfence; load r0 y
 * THREAD 1: store y 1; mfence; load r1 z
 * THREAD 2: store z 1; mfence; load r2 x
 * EXISTS: r0=0 r1=0 r2=0
 * CLASSES: sc=7 tso=7 pso=7
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y, z;
static long res_r0, res_r1, res_r2;

static void *t0(void *arg) {
  long r0;
  STORE(x, 1);
  MFENCE();
  LOAD(r0, y);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  STORE(y, 1);
  MFENCE();
  LOAD(r1, z);
  res_r1 = r1;
  return arg;
}

static void *t2(void *arg) {
  long r2;
  STORE(z, 1);
  MFENCE();
  LOAD(r2, x);
  res_r2 = r2;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 0 && res_r1 == 0 && res_r2 == 0));
  return 0;
}
