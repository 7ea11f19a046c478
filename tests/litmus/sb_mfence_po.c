/* LITMUS SB+mfence+po
 * Store buffering with a fence in one thread only. Thread 0's store reaches
 * memory before its load, but thread 1's store can still be buffered when
 * thread 1 reads x: one fence is not enough, the outcome stays allowed.
 *
 * THREAD 0: store x 1; mfence; load r0 y
 * THREAD 1: store y 1; load r1 x
 * EXISTS: r0=0 r1=0
 * CLASSES: sc=3 tso=4 pso=4
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
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
