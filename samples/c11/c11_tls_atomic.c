/* A _Thread_local atomic read with atomic_load in main and in a new thread
 * before anything stores to it (libatomic calls). Thread-local storage is
 * initialised by glibc (.tdata copied, .tbss zeroed) for each thread, main's
 * at startup and a new thread's in pthread_create: neither read is an
 * uninitialised load, whatever ctrl's events show. Correct. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static _Thread_local atomic_int mine;
static _Thread_local atomic_int seeded = 7;

static void *worker(void *arg) {
  assert(atomic_load(&mine) == 0);
  assert(atomic_load(&seeded) == 7);
  atomic_store(&mine, 1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  assert(atomic_load(&mine) == 0);
  assert(atomic_load(&seeded) == 7);
  pthread_join(t, 0);
  return 0;
}
