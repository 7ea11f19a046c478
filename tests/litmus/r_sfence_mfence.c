/* LITMUS R+sfence+mfence
 * Test R with an sfence between thread 0's stores and an mfence in thread 1:
 * forbidden everywhere.
 *
 * THREAD 0: store x 1; sfence; store y 1
 * THREAD 1: store y 2; mfence; load r0 x
 * EXISTS: y=2 r0=0
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0;

static void *t0(void *arg) {
  STORE(x, 1);
  SFENCE();
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
