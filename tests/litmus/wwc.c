/* LITMUS WWC
 * Write-to-write causality: thread 1 sees x=2 and writes y; thread 2 sees y
 * and writes x=1. Its x=1 then comes after the x=2 thread 1 saw, so x cannot
 * end as 2. Each thread stores at most once and never loads after a store:
 * forbidden everywhere.
 *
 * THREAD 0: store x 2
 * THREAD 1: load r0 x; store y 1
 * THREAD 2: load r1 y; store x 1
 * EXISTS: r0=2 r1=1 x=2
 * CLASSES: sc=9 tso=9 pso=9
 * EXPECT: sc=no tso=no pso=no tso-safe=yes
 */
#include "litmus.h"

static volatile long x, y;
static long res_r0, res_r1;

static void *t0(void *arg) {
  STORE(x, 2);
  return arg;
}

static void *t1(void *arg) {
  long r0;
  LOAD(r0, x);
  STORE(y, 1);
  res_r0 = r0;
  return arg;
}

static void *t2(void *arg) {
  long r1;
  LOAD(r1, y);
  STORE(x, 1);
  res_r1 = r1;
  return arg;
}

int main(void) {
  static const litmus_thread threads[] = {t0, t1, t2};
  LITMUS_RUN(threads);
  assert(!(res_r0 == 2 && res_r1 == 1 && x == 2));
  return 0;
}
