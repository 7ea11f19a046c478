/* LITMUS CoRW2
 * Two threads each read x and then write it (after test n4 of the x86-TSO
 * papers): each reading the other's write would put each write before the
 * other in x's coherence order.
 *
 * THREAD 0: load r0 x; store x 1
 * THREAD 1: load r1 x; store x 2
 * EXISTS: r0=2 r1=1
 * CLASSES: sc=4 tso=4 pso=4
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r0;
  LOAD(r0, x);
  STORE(x, 1);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  LOAD(r1, x);
  STORE(x, 2);
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && res_r1 == 1));
  return 0;
}
