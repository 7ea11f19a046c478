/* LITMUS IRIW
 * Independent reads of independent writes: two writers, two readers reading
 * the locations in opposite orders. The readers disagreeing on the order of
 * the two writes would need non-multi-copy-atomic stores; x86 stores become
 * visible to all other threads at once (store buffers are private and memory
 * is shared), so it is forbidden in all three models.
 *
 * THREAD 0: store x 1
 * THREAD 1: store y 1
 * THREAD 2: load r0 x; load r1 y
 * THREAD 3: load r2 y; load r3 x
 * EXISTS: r0=1 r1=0 r2=1 r3=0
 * CLASSES: sc=15 tso=15 pso=15
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1, res_r2, res_r3;

static void *t0(void *arg) {
  STORE(x, 1);
  return arg;
}

static void *t1(void *arg) {
  STORE(y, 1);
  return arg;
}

static void *t2(void *arg) {
  long r0, r1;
  LOAD(r0, x);
  LOAD(r1, y);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

static void *t3(void *arg) {
  long r2, r3;
  LOAD(r2, y);
  LOAD(r3, x);
  res_r2 = r2;
  res_r3 = r3;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2, t3};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 0 && res_r2 == 1 && res_r3 == 0));
  return 0;
}
