/* LITMUS SB+CoWR
 * Store buffering between threads 0 and 1 (on z and w), after thread 0 has
 * stored x and read it back, seeing thread 2's overwrite rather than its own
 * value. The read-back could be forwarded from the buffer; seeing 2 needs
 * thread 0's store to reach memory, thread 2's to follow, and only then the
 * load. The store buffering afterwards makes the outcome TSO-only: SC
 * forbids it, TSO and PSO allow it.
 *
 * THREAD 0: store x 1; load r0 x; store z 1; load r1 w
 * THREAD 1: store w 1; load r2 z
 * THREAD 2: store x 2
 * EXISTS: r0=2 r1=0 r2=0
 * CLASSES: sc=9 tso=12 pso=12
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
 */
#include "litmus.h"

static volatile long x, z, w;
static long res_r0, res_r1, res_r2;

static void *t0(void *arg) {
  long r0, r1;
  STORE(x, 1);
  LOAD(r0, x);
  STORE(z, 1);
  LOAD(r1, w);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

static void *t1(void *arg) {
  long r2;
  STORE(w, 1);
  LOAD(r2, z);
  res_r2 = r2;
  return arg;
}

static void *t2(void *arg) {
  STORE(x, 2);
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && res_r1 == 0 && res_r2 == 0));
  return 0;
}
