/* LITMUS SB
 * Store buffering. Each thread writes one location and then reads the other.
 * Under sequential consistency one of the two writes comes first, so some
 * load sees a 1. On x86 each store can still sit in its thread's store
 * buffer while the following load reads the other location from memory: both
 * loads read 0. This is the standard example of x86-TSO's only reordering, a
 * store followed by a load of another location.
 *
 * THREAD 0: store x 1; load r0 y
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
