/* LITMUS SB+rfis
 * Store buffering where each thread first reads back its own store (Intel
 * SDM's "intra-processor forwarding is allowed" example). Each thread sees
 * its own store early, through its store buffer, while the other thread does
 * not see it yet: r0=1 and r2=1 but r1=0 and r3=0. Under SC the own
 * read-backs change nothing, so it stays forbidden there.
 *
 * THREAD 0: store x 1; load r0 x; load r1 y
 * THREAD 1: store y 1; load r2 y; load r3 x
 * EXISTS: r0=1 r1=0 r2=1 r3=0
 * CLASSES: sc=3 tso=4 pso=4
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1, res_r2, res_r3;

static void *t0(void *arg) {
  long r0, r1;
  STORE(x, 1);
  LOAD(r0, x);
  LOAD(r1, y);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

static void *t1(void *arg) {
  long r2, r3;
  STORE(y, 1);
  LOAD(r2, y);
  LOAD(r3, x);
  res_r2 = r2;
  res_r3 = r3;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 0 && res_r2 == 1 && res_r3 == 0));
  return 0;
}
