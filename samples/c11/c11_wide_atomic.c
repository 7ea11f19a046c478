/* A 16-byte atomic (libatomic's __atomic_load_16 and __atomic_store_16):
 * --model c11/rc11 follows atomics of 1, 2, 4 and 8 bytes only, and must
 * end the execution as unsupported with a clear message; other models run
 * it. Correct under every model. Built with -fno-inline-atomics. */
#include <assert.h>
#include <pthread.h>

static unsigned __int128 wide;

static void *worker(void *arg) {
  __atomic_store_n(&wide, (unsigned __int128)1 << 64, __ATOMIC_RELAXED);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  assert(__atomic_load_n(&wide, __ATOMIC_RELAXED) == (unsigned __int128)1 << 64);
  return 0;
}
