/* LITMUS CoWW
 * Coherence of two writes by one thread: they reach memory in program order
 * (a store buffer is FIFO for each location, also under PSO), so a reader
 * never sees the second and then the first.
 *
 * THREAD 0: store x 1; store x 2
 * THREAD 1: load r0 x; load r1 x
 * EXISTS: r0=2 r1=1
 * CLASSES: sc=6 tso=6 pso=6
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0, res_r1;

static void *t0(void *arg) {
  STORE(x, 1);
  STORE(x, 2);
  return arg;
}

static void *t1(void *arg) {
  long r0, r1;
  LOAD(r0, x);
  LOAD(r1, x);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && res_r1 == 1));
  return 0;
}
