/* Buggy: `counter++` in two threads, no lock, no atomics.
 *
 * At -O2 GCC compiles the increment to one instruction without a lock
 * prefix, `addl $1, counter(%rip)` (the e2e test lost_update_plain_code
 * checks it with objdump): a load and a store to the processor. On a
 * multicore machine the other thread's increment can come between them and
 * be overwritten, and the assertion fails. ctrl runs such an instruction as
 * two steps, a load then a store, under every memory model. */
#include <assert.h>
#include <pthread.h>

static int counter;

__attribute__((noinline)) static void *increment(void *arg) {
  (void)arg;
  counter++;
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, increment, 0);
  pthread_create(&t2, 0, increment, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(counter == 2);
  return 0;
}
