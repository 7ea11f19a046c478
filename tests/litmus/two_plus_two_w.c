/* LITMUS 2+2W
 * Two threads each write two locations in opposite orders. Ending with both
 * first writes in memory (x=1, y=1) needs each thread's second store to
 * reach memory before its first one. TSO flushes in program order, so it is
 * forbidden there as under SC; under PSO stores to different words overtake
 * each other.
 *
 * THREAD 0: store x 1; store y 2
 * THREAD 1: store y 1; store x 2
 * EXISTS: x=1 y=1
 * CLASSES: sc=3 tso=3 pso=4
 * EXPECT: sc=no tso=no pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;

static void *t0(void *arg) {
  STORE(x, 1);
  STORE(y, 2);
  return arg;
}

static void *t1(void *arg) {
  STORE(y, 1);
  STORE(x, 2);
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(x == 1 && y == 1));
  return 0;
}
