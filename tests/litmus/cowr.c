/* LITMUS CoWR
 * Coherence of a write then a read: a thread that wrote x=1 and then reads
 * thread 1's x=2 must have let its own write reach memory first, so x ends
 * as 2, not 1. Reading its own value early from the buffer is allowed and
 * leaves an SC explanation: TSO-safe.
 *
 * THREAD 0: store x 1; load r0 x
 * THREAD 1: store x 2
 * EXISTS: r0=2 x=1
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0;

static void *t0(void *arg) {
  long r0;
  STORE(x, 1);
  LOAD(r0, x);
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
  assert(!(res_r0 == 2 && x == 1));
  return 0;
}
