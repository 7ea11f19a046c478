/* LITMUS RWC
 * Read-to-write causality: thread 1 sees thread 0's x and then misses y;
 * thread 2 writes y and then misses x. Under SC thread 2's store precedes
 * its load, which then follows thread 1's reads and so sees x=1. Under TSO
 * thread 2's y can sit in its buffer: allowed.
 *
 * THREAD 0: store x 1
 * THREAD 1: load r0 x; load r1 y
 * THREAD 2: store y 1; load r2 x
 * EXISTS: r0=1 r1=0 r2=0
 * CLASSES: sc=7 tso=8 pso=8
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1, res_r2;

static void *t0(void *arg) {
  STORE(x, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0, r1;
  LOAD(r0, x);
  LOAD(r1, y);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

static void *t2(void *arg) {
  long r2;
  STORE(y, 1);
  LOAD(r2, x);
  res_r2 = r2;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 0 && res_r2 == 0));
  return 0;
}
