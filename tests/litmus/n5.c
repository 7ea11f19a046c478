/* LITMUS n5
 * Coherence with forwarding, after test n5 of the x86-TSO papers: two
 * threads write x and read it back. Thread 0 reading thread 1's 2 means its
 * own 1 reached memory before the 2; thread 1 reading 1 means the opposite.
 * Forbidden everywhere: buffers are FIFO per location and memory has one
 * order of writes per location. Every TSO execution (including one where
 * both read their own value and the first writer wins) has an SC equivalent,
 * so it is TSO-safe.
 *
 * THREAD 0: store x 1; load r0 x
 * THREAD 1: store x 2; load r1 x
 * EXISTS: r0=2 r1=1
 * CLASSES: sc=4 tso=4 pso=4
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r0;
  STORE(x, 1);
  LOAD(r0, x);
  res_r0 = r0;
  return arg;
}

static void *t1(void *arg) {
  long r1;
  STORE(x, 2);
  LOAD(r1, x);
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && res_r1 == 1));
  return 0;
}
