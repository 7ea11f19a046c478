/* A seqlock (Boehm, "Can seqlocks get along with programming language
 * memory models?", MSPC 2012, the version with fences): a writer makes the
 * sequence number odd, writes the data, makes it even again; a reader reads
 * the number, the data, then the number again, and keeps the data only if
 * both numbers are the same even value. All accesses are atomics (the data
 * relaxed), built with -fno-inline-atomics: every one is a libatomic call.
 *
 * C11_FIXED: the reader's acquire fence between its data loads and its
 * second load of the number. Without it (the buggy version) nothing orders
 * the second load after the writer's odd store: under C11 a reader can read
 * one new datum and one old one, still see the old even number twice, and
 * keep a torn snapshot (the assertion). Under SC and x86-TSO both versions
 * are correct. The fences are libatomic's atomic_thread_fence function (the
 * builtin is inline: nothing at all for acquire and release). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static long seq, data1, data2;

static void *writer(void *arg) {
  long s = __atomic_load_n(&seq, __ATOMIC_RELAXED);
  __atomic_store_n(&seq, s + 1, __ATOMIC_RELAXED);
  (atomic_thread_fence)(memory_order_release);
  __atomic_store_n(&data1, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&data2, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&seq, s + 2, __ATOMIC_RELEASE);
  return arg;
}

static void *reader(void *arg) {
  /* Bounded retries: a reader that never gets a stable snapshot gives up. */
  for (int attempt = 0; attempt < 2; attempt++) {
    long s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
    long r1 = __atomic_load_n(&data1, __ATOMIC_RELAXED);
    long r2 = __atomic_load_n(&data2, __ATOMIC_RELAXED);
#ifdef C11_FIXED
    (atomic_thread_fence)(memory_order_acquire);
#endif
    long s2 = __atomic_load_n(&seq, __ATOMIC_RELAXED);
    if (!(s1 & 1) && s1 == s2) {
      assert(r1 == r2); /* a consistent snapshot */
      break;
    }
  }
  return arg;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  return 0;
}
