/* LITMUS LB
 * Load buffering: each thread reads one location and then writes the other.
 * Both reads seeing the other thread's later write would need a load to be
 * performed after a later store; x86 never does that (stores are buffered,
 * loads are not), and neither do the store-buffer models: forbidden.
 *
 * THREAD 0: load r0 x; store y 1
 * THREAD 1: load r1 y; store x 1
 * EXISTS: r0=1 r1=1
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r0;
  LOAD(r0, x);
  STORE(y, 1);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  LOAD(r1, y);
  STORE(x, 1);
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 1));
  return 0;
}
