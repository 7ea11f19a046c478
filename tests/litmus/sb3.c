/* LITMUS SB3
 * Store buffering around a ring of three threads: each writes its location
 * and reads the next thread's. Under SC the first store to reach memory is
 * read by the thread before it in the ring; under TSO all three stores can
 * be buffered while the three loads read 0.
 *
 * THREAD 0: store x 1; load r0 y
 * THREAD 1: store y 1; load r1 z
 * THREAD 2: store z 1; load r2 x
 * EXISTS: r0=0 r1=0 r2=0
 * CLASSES: sc=7 tso=8 pso=8
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
 */
#include "litmus.h"

static volatile long x, y, z;
static long res_r0, res_r1, res_r2;

static void *t0(void *arg) {
  long r0;
  STORE(x, 1);
  LOAD(r0, y);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  STORE(y, 1);
  LOAD(r1, z);
  res_r1 = r1;
  return arg;
}

static void *t2(void *arg) {
  long r2;
  STORE(z, 1);
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
