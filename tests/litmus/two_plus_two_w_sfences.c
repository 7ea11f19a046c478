/* LITMUS 2+2W+sfences
 * 2+2W with an sfence between the two stores of each thread: the stores
 * reach memory in program order under PSO too: forbidden everywhere.
 *
 * THREAD 0: store x 1; sfence; store y 2
 * THREAD 1: store y 1; sfence; store x 2
 * EXISTS: x=1 y=1
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
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
  SFENCE();
  STORE(x, 2);
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(x == 1 && y == 1));
  return 0;
}
