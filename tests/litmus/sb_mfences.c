/* LITMUS SB+mfences
 * Store buffering with an mfence between the store and the load in both
 * threads. mfence waits until the thread's store buffer is empty, so each
 * store is in memory before the thread's load: the outcome is forbidden
 * everywhere and every TSO execution is an SC one.
 *
 * THREAD 0: store x 1; mfence; load r0 y
 * THREAD 1: store y 1; mfence; load r1 x
 * EXISTS: r0=0 r1=0
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

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
  LOAD(r1, x);
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 0 && res_r1 == 0));
  return 0;
}
