/* LITMUS SB+xchgs
 * Store buffering where each store is an xchg (implicitly locked). A locked
 * instruction drains the store buffer and writes memory directly, and later
 * loads cannot pass it (Intel: loads are not reordered with locked
 * instructions): forbidden in every model.
 *
 * THREAD 0: xchg r2 x 1; load r0 y
 * THREAD 1: xchg r3 y 1; load r1 x
 * EXISTS: r0=0 r1=0
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r2, r0;
  XCHG(r2, x, 1);
  LOAD(r0, y);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r3, r1;
  XCHG(r3, y, 1);
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
