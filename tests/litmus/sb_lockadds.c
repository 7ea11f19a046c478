/* LITMUS SB+lock-adds
 * Store buffering with a lock add of 0 to a thread-private word (f0, f1)
 * between the plain store and the load: the locked instruction serves as a
 * full fence, as compilers use it instead of mfence. The fence words are
 * never shared, so only the drain matters: forbidden in every model.
 *
 * THREAD 0: store x 1; lock-add f0 0; load r0 y
 * THREAD 1: store y 1; lock-add f1 0; load r1 x
 * EXISTS: r0=0 r1=0
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, f0, y, f1;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r0;
  STORE(x, 1);
  LOCK_ADD(f0, 0);
  LOAD(r0, y);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  STORE(y, 1);
  LOCK_ADD(f1, 0);
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
