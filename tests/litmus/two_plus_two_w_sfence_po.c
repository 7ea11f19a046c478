/* LITMUS 2+2W+sfence+po
 * 2+2W with an sfence in thread 0 only. Thread 1's two stores can still
 * reach memory out of order under PSO, which is enough for the outcome.
 *
 * THREAD 0: store x 1; sfence; store y 2
 * THREAD 1: store y 1; store x 2
 * EXISTS: x=1 y=1
 * CLASSES: sc=3 tso=3 pso=4
 * EXPECT: sc=no tso=no pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;

static void *t0(void *arg) {
  STORE(x, 1);
  SFENCE();
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
