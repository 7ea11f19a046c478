/* LITMUS S+sfence
 * Test S with an sfence between thread 0's stores: forbidden everywhere.
 *
 * THREAD 0: store x 2; sfence; store y 1
 * THREAD 1: load r0 y; store x 1
 * EXISTS: x=2 r0=1
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0;

static void *t0(void *arg) {
  STORE(x, 2);
  SFENCE();
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
