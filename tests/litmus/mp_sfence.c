/* LITMUS MP+sfence
 * Message passing with an sfence between the data and the flag: under PSO
 * sfence keeps the stores before it ahead of the stores after it, which
 * restores the order message passing needs: forbidden everywhere.
 *
 * THREAD 0: store x 1; sfence; store y 1
 * THREAD 1: load r0 y; load r1 x
 * EXISTS: r0=1 r1=0
 * CLASSES: sc=3 tso=3 pso=3
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  STORE(x, 1);
  SFENCE();
  STORE(y, 1);
  return arg;
}

static void *t1(void *arg) {
  long r0, r1;
  LOAD(r0, y);
  LOAD(r1, x);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 0));
  return 0;
}
