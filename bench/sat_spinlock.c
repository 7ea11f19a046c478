/* The CAS spinlock of SATCheck's evaluation (Demsky, Lam, OOPSLA 2015,
 * "CAS Spinlock"): two threads each take and release one lock N times
 * (argv[1], default 2): acquire is a compare-and-swap loop, release a
 * store. In each critical section the thread writes its id to `owner` and
 * asserts it reads it back. With "broken" (argv[2]) the acquire's CAS
 * writes 0 instead of 1 (a wrong lock bit): the lock is never held and
 * the assertion fails in some interleaving.
 * Every shared access is a libatomic call (-fno-inline-atomics). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static long lock_word, owner;
static int pairs = 2;
static long held = 1;

static void acquire(void) {
  for (;;) {
    long expected = 0;
    if (__atomic_compare_exchange_n(&lock_word, &expected, held, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
  }
}

static void release(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_SEQ_CST); }

static void *worker(void *arg) {
  long me = (long)arg;
  for (int i = 0; i < pairs; ++i) {
    acquire();
    __atomic_store_n(&owner, me, __ATOMIC_SEQ_CST);
    assert(__atomic_load_n(&owner, __ATOMIC_SEQ_CST) == me);
    release();
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) pairs = atoi(argv[1]);
  if (argc > 2 && strcmp(argv[2], "broken") == 0) held = 0;
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)1L);
  pthread_create(&b, NULL, worker, (void *)2L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
