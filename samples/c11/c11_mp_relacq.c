/* Message passing with a release store and an acquire load of the flag (the
 * data relaxed): a reader that reads the flag's new value synchronises with
 * the writer and must see the data. Correct under C11, RC11, SC and x86-TSO:
 * ctrl must find no bug. Built with -fno-inline-atomics. */
#include <assert.h>
#include <pthread.h>

static int data, flag;

static void *writer(void *arg) {
  __atomic_store_n(&data, 42, __ATOMIC_RELAXED);
  __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
  return arg;
}

static void *reader(void *arg) {
  if (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 1) assert(__atomic_load_n(&data, __ATOMIC_RELAXED) == 42);
  return arg;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r, 0);
  return 0;
}
