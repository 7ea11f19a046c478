/* The Linux kernel's reader-writer lock (the old x86 rwlock_t: a counter
 * that starts at RW_LOCK_BIAS; a reader takes 1, a writer the whole bias),
 * as in SATCheck's evaluation (Demsky, Lam, OOPSLA 2015, "Linux
 * reader-writer lock"): two identical threads each, N times (argv[1],
 * default 2), try the write lock, write the guarded value and check it,
 * then try the read lock and check two reads of the value agree.
 *
 * Variant (argv[2]): "broken", a write trylock that takes any result <= 0
 * for success (the wrong test: a second writer's -BIAS also passes), so two
 * writers may hold the lock (found under sc). Every shared access is a
 * libatomic call (-fno-inline-atomics). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RW_LOCK_BIAS 0x00100000

static int lock = RW_LOCK_BIAS, value;
static int rounds = 2, broken;

static int write_trylock(void) {
  int left = __atomic_sub_fetch(&lock, RW_LOCK_BIAS, __ATOMIC_SEQ_CST);
  if (left == 0 || (broken && left < 0)) return 1;
  __atomic_add_fetch(&lock, RW_LOCK_BIAS, __ATOMIC_SEQ_CST);
  return 0;
}

static void write_unlock(void) { __atomic_add_fetch(&lock, RW_LOCK_BIAS, __ATOMIC_SEQ_CST); }

static int read_trylock(void) {
  if (__atomic_sub_fetch(&lock, 1, __ATOMIC_SEQ_CST) >= 0) return 1;
  __atomic_add_fetch(&lock, 1, __ATOMIC_SEQ_CST);
  return 0;
}

static void read_unlock(void) { __atomic_add_fetch(&lock, 1, __ATOMIC_SEQ_CST); }

static void *worker(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < rounds; ++i) {
    if (write_trylock()) {
      __atomic_store_n(&value, me, __ATOMIC_RELAXED);
      assert(__atomic_load_n(&value, __ATOMIC_RELAXED) == me);
      write_unlock();
    }
    if (read_trylock()) {
      int a = __atomic_load_n(&value, __ATOMIC_RELAXED);
      assert(__atomic_load_n(&value, __ATOMIC_RELAXED) == a);
      read_unlock();
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2 && strcmp(argv[2], "broken") == 0) broken = 1;
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)1L);
  pthread_create(&b, NULL, worker, (void *)2L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
