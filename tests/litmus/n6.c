/* LITMUS n6
 * Forwarding with a final value, after test n6 of the x86-TSO papers. Thread
 * 0 reads its own x=1 from its buffer and y=0 from memory; thread 1 then
 * writes y=2 and x=2, and only then does thread 0's x=1 reach memory, so x
 * ends as 1. Under SC, y=0 means thread 0 read before thread 1's writes, so
 * x=2 would be written after x=1. The outcome needs the load of x to be
 * satisfied from the buffer while the store is still invisible to thread 1:
 * if a thread could read its own stores only once they are in memory, it
 * would be forbidden.
 *
 * THREAD 0: store x 1; load r0 x; load r1 y
 * THREAD 1: store y 2; store x 2
 * EXISTS: r0=1 r1=0 x=1
 * CLASSES: sc=4 tso=5 pso=6
 * EXPECT: sc=no tso=yes pso=yes tso-safe=no
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  long r0, r1;
  STORE(x, 1);
  LOAD(r0, x);
  LOAD(r1, y);
  res_r0 = r0;
  res_r1 = r1;
  return arg;
}

static void *t1(void *arg) {
  STORE(y, 2);
  STORE(x, 2);
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 1 && res_r1 == 0 && x == 1));
  return 0;
}
