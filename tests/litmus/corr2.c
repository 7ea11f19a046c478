/* LITMUS CoRR2
 * Coherence seen by two readers: two writers store 1 and 2 to the same
 * location; the readers cannot see the two writes in opposite orders.
 *
 * THREAD 0: store x 1
 * THREAD 1: store x 2
 * THREAD 2: load r0 x; load r1 x
 * THREAD 3: load r2 x; load r3 x
 * EXISTS: r0=1 r1=2 r2=2 r3=1
 * CLASSES: sc=72 tso=72 pso=72
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0, res_r1, res_r2, res_r3;

static void *t0(void *arg) {
  STORE(x, 1);
  return arg;
}

static void *t1(void *arg) {
  STORE(x, 2);
  return arg;
}

static void *t2(void *arg) {
  long r0, r1;
  LOAD(r0, x);
  LOAD(r1, x);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

static void *t3(void *arg) {
  long r2, r3;
  LOAD(r2, x);
  LOAD(r3, x);
  res_r2 = r2;
  res_r3 = r3;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2, t3};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 2 && res_r2 == 2 && res_r3 == 1));
  return 0;
}
