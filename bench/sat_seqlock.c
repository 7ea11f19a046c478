/* A sequence lock, as in SATCheck's evaluation (Demsky, Lam, OOPSLA 2015,
 * "Seqlock"): one writer, two readers. The writer updates a pair N times
 * (argv[1], default 2), making the sequence number odd while it writes;
 * each reader reads the pair N times, retrying until it read an even
 * sequence number that did not change, and asserts the pair it got is
 * consistent.
 *
 * Variant (argv[2]): "broken", a reader that does not check the sequence
 * number's low bit (the wrong lock bit): it accepts a pair read while the
 * writer was half way (found under sc). Every shared access is a libatomic
 * call (-fno-inline-atomics). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int seq, data_a, data_b;
static int rounds = 2, broken;

static void *writer(void *arg) {
  (void)arg;
  for (int i = 1; i <= rounds; ++i) {
    int s = __atomic_load_n(&seq, __ATOMIC_RELAXED);
    __atomic_store_n(&seq, s + 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&data_a, i, __ATOMIC_SEQ_CST);
    __atomic_store_n(&data_b, i, __ATOMIC_SEQ_CST);
    __atomic_store_n(&seq, s + 2, __ATOMIC_SEQ_CST);
  }
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  for (int i = 0; i < rounds; ++i) {
    for (;;) {
      int s1 = __atomic_load_n(&seq, __ATOMIC_SEQ_CST);
      if ((s1 & 1) && !broken) continue;
      int a = __atomic_load_n(&data_a, __ATOMIC_SEQ_CST);
      int b = __atomic_load_n(&data_b, __ATOMIC_SEQ_CST);
      if (__atomic_load_n(&seq, __ATOMIC_SEQ_CST) != s1) continue;
      assert(a == b);
      break;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2 && strcmp(argv[2], "broken") == 0) broken = 1;
  pthread_t w, r1, r2;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r1, NULL, reader, NULL);
  pthread_create(&r2, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r1, NULL);
  pthread_join(r2, NULL);
  return 0;
}
