/* LITMUS SB+lfences
 * Store buffering with lfence between the store and the load. lfence orders
 * loads (and instruction execution) but does not drain the store buffer, so
 * on write-back memory it does nothing against this reordering: the outcome
 * stays allowed under TSO. A tool treating lfence as a full fence would call
 * this program correct.
 *
 * THREAD 0: store x 1; lfence; load r0 y
 * THREAD 1: store y 1; lfence; load r1 x
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
  LFENCE();
  LOAD(r0, y);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  STORE(y, 1);
  LFENCE();
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
