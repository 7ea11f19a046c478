/* LITMUS MP+xchg
 * Message passing where the flag is set by xchg. The locked instruction
 * drains the buffers first, so even under PSO the data is in memory before
 * the flag: forbidden everywhere.
 *
 * THREAD 0: store x 1; xchg r2 y 1
 * THREAD 1: load r0 y; load r1 x
 * EXISTS: r0=1 r1=0
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r2;
  STORE(x, 1);
  XCHG(r2, y, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0, r1;
  LOAD(r0, y);
  LOAD(r1, x);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 0));
  return 0;
}
