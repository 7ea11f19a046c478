/* Message passing with relaxed atomics: the writer stores the data, then the
 * flag, both relaxed; the reader sees the flag and asserts it sees the data.
 * Nothing orders the two stores for the reader: under C11 (and RC11) it may
 * read the flag's new value and the data's initial one, and the assertion
 * fails. Under SC and x86-TSO it cannot. Built with -fno-inline-atomics:
 * every atomic is a libatomic call. */
#include <assert.h>
#include <pthread.h>

static int data, flag;

static void *writer(void *arg) {
  __atomic_store_n(&data, 42, __ATOMIC_RELAXED);
  __atomic_store_n(&flag, 1, __ATOMIC_RELAXED);
  return arg;
}

static void *reader(void *arg) {
  if (__atomic_load_n(&flag, __ATOMIC_RELAXED) == 1) assert(__atomic_load_n(&data, __ATOMIC_RELAXED) == 42);
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
