/* Bug: an atomicity violation across two critical sections. Two tellers
 * withdraw from one account: each reads the balance under the mutex,
 * releases it, yields, then takes the mutex again (a trylock retry loop
 * with sched_yield) and writes balance - amount. A withdrawal can be lost:
 * the final balance is asserted.
 * Depth 2: the other teller's whole withdrawal between one teller's read
 * and write.
 * Retry style: pthread_mutex_trylock + sched_yield loop (local progress). */
#include "bug_common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long balance = 100;

static long take_lock(void) {
  long spins = 0;
  while (pthread_mutex_trylock(&m) != 0) {
    sched_yield();
    spins++;
  }
  return spins;
}

static void* teller(void* arg) {
  long amount = (long)arg;
  take_lock();
  long b = LD(balance);
  pthread_mutex_unlock(&m);
  sched_yield(); /* BUG: the check and the update are separate sections */
  take_lock();
  ST(balance, b - amount);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, teller, (void*)10L);
  pthread_create(&b, NULL, teller, (void*)20L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(LD(balance) == 70);
  return 0;
}
