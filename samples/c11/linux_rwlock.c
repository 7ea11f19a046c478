/* The Linux reader-writer spinlock as CDSChecker ported it (Norris and
 * Demsky, TOPLAS 2016, "Linux RW lock"): one counter starting at
 * RW_LOCK_BIAS; a reader takes one unit, a writer the whole bias, and backs
 * off (gives it back and waits) when the counter says it cannot have it.
 * Two threads each read a shared plain variable under the read lock, then
 * write it under the write lock, as in the paper's driver. Every atomic is a
 * libatomic call (-fno-inline-atomics).
 *
 * The paper reports no bug in this lock; the buggy version has one put in:
 * its write_unlock gives the bias back with a relaxed RMW instead of a
 * release one. A thread that then takes the lock reads from that RMW, which
 * still continues the release sequence of the writer's earlier read_unlock,
 * so it synchronises with that release, not with the write it has to see:
 * under C11 the writer's store to the shared variable and the next thread's
 * access race (a plain access on each side), and the next thread may read
 * the old value. C11_FIXED: a release RMW. Under SC both are correct. */
#include <assert.h>
#include <pthread.h>

#define RW_LOCK_BIAS 0x00100000

#ifdef C11_FIXED
#define WRITE_UNLOCK_ORDER __ATOMIC_RELEASE
#else
#define WRITE_UNLOCK_ORDER __ATOMIC_RELAXED
#endif

static int lock = RW_LOCK_BIAS;
static int shared;

static void read_lock(int *rw) {
  int prior = __atomic_fetch_sub(rw, 1, __ATOMIC_ACQUIRE);
  while (prior <= 0) {
    __atomic_fetch_add(rw, 1, __ATOMIC_RELAXED);
    while (__atomic_load_n(rw, __ATOMIC_RELAXED) <= 0) {
    }
    prior = __atomic_fetch_sub(rw, 1, __ATOMIC_ACQUIRE);
  }
}

static void write_lock(int *rw) {
  int prior = __atomic_fetch_sub(rw, RW_LOCK_BIAS, __ATOMIC_ACQUIRE);
  while (prior != RW_LOCK_BIAS) {
    __atomic_fetch_add(rw, RW_LOCK_BIAS, __ATOMIC_RELAXED);
    while (__atomic_load_n(rw, __ATOMIC_RELAXED) != RW_LOCK_BIAS) {
    }
    prior = __atomic_fetch_sub(rw, RW_LOCK_BIAS, __ATOMIC_ACQUIRE);
  }
}

static void read_unlock(int *rw) { __atomic_fetch_add(rw, 1, __ATOMIC_RELEASE); }
static void write_unlock(int *rw) { __atomic_fetch_add(rw, RW_LOCK_BIAS, WRITE_UNLOCK_ORDER); }

static void *worker(void *arg) {
  read_lock(&lock);
  int seen = *(volatile int *)&shared;
  read_unlock(&lock);
  write_lock(&lock);
  *(volatile int *)&shared = seen + 1;
  write_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  /* Both increments may read 0 (each read under the shared read lock before
   * either writes): 1 or 2, never anything else. */
  assert(shared == 1 || shared == 2);
  return 0;
}
