/* Dekker's mutual exclusion, as in SATCheck's evaluation (Demsky, Lam,
 * OOPSLA 2015, "Dekker"): two threads each enter a critical section N
 * times (argv[1], default 2). The critical section writes a pair of
 * locations and asserts the pair is consistent when it reads it back.
 *
 * Variants (argv[2]):
 *   "broken"  the flag raised after the other's is checked, not before
 *             (both may see the other's lowered and enter; found under sc);
 *   "nofence" the flag store is a release store, not seq_cst: under tso it
 *             sits in the store buffer while the thread reads the other's
 *             flag (found under --model tso only; sc never sees it).
 * Every shared access is a libatomic call (-fno-inline-atomics). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int flag[2], turn, data_a, data_b;
static int rounds = 2, broken, nofence;

static void set_flag(int me, int v) {
  if (nofence)
    __atomic_store_n(&flag[me], v, __ATOMIC_RELEASE);
  else
    __atomic_store_n(&flag[me], v, __ATOMIC_SEQ_CST);
}

static void *worker(void *arg) {
  int me = (int)(long)arg, other = 1 - me;
  for (int i = 0; i < rounds; ++i) {
    if (broken) {
      while (__atomic_load_n(&flag[other], __ATOMIC_SEQ_CST)) {
      }
    }
    set_flag(me, 1);
    while (!broken && __atomic_load_n(&flag[other], __ATOMIC_SEQ_CST)) {
      if (__atomic_load_n(&turn, __ATOMIC_SEQ_CST) != me) {
        set_flag(me, 0);
        while (__atomic_load_n(&turn, __ATOMIC_SEQ_CST) != me) {
        }
        set_flag(me, 1);
      }
    }
    /* The critical section: a pair only its owner writes. */
    __atomic_store_n(&data_a, me, __ATOMIC_RELAXED);
    __atomic_store_n(&data_b, me, __ATOMIC_RELAXED);
    assert(__atomic_load_n(&data_a, __ATOMIC_RELAXED) == __atomic_load_n(&data_b, __ATOMIC_RELAXED));
    __atomic_store_n(&turn, other, __ATOMIC_SEQ_CST);
    set_flag(me, 0);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2 && strcmp(argv[2], "broken") == 0) broken = 1;
  if (argc > 2 && strcmp(argv[2], "nofence") == 0) nofence = 1;
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)0L);
  pthread_create(&b, NULL, worker, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
