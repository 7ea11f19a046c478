/* LITMUS MP
 * Message passing: thread 0 writes the data x, then the flag y; thread 1
 * reads the flag, then the data. x86 keeps stores in order and loads in
 * order, so seeing the flag implies seeing the data under SC and TSO. Under
 * PSO the two stores go to different words and can reach memory in the
 * opposite order.
 *
 * THREAD 0: store x 1; store y 1
 * THREAD 1: load r0 y; load r1 x
 * EXISTS: r0=1 r1=0
 * CLASSES: sc=3 tso=3 pso=4
 * EXPECT: sc=no tso=no pso=yes tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  STORE(x, 1);
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
