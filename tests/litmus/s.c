/* LITMUS S
 * Test S: thread 0 writes x=2 then y=1; thread 1 reads y and then writes
 * x=1. If thread 1 read y=1, its x=1 comes after thread 0's x=2 under SC and
 * TSO (stores in order, a load never passes a later store), so x cannot end
 * as 2. PSO allows thread 0's y to reach memory before its x.
 *
 * THREAD 0: store x 2; store y 1
 * THREAD 1: load r0 y; store x 1
 * EXISTS: x=2 r0=1
 * CLASSES: sc=3 tso=3 pso=4
 * EXPECT: sc=no tso=no pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0;

static void *t0(void *arg) {
  STORE(x, 2);
  STORE(y, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0;
  LOAD(r0, y);
  STORE(x, 1);
  res_r0 = r0;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(x == 2 && res_r0 == 1));
  return 0;
}
