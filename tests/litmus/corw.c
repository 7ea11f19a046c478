/* LITMUS CoRW
 * Coherence of a read then a write: if thread 0 read thread 1's x=2, its own
 * later x=1 comes after it, so x cannot end as 2.
 *
 * THREAD 0: load r0 x; store x 1
 * THREAD 1: store x 2
 * EXISTS: r0=2 x=2
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0;

static void *t0(void *arg) {
  long r0;
  LOAD(r0, x);
  STORE(x, 1);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  STORE(x, 2);
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && x == 2));
  return 0;
}
