/* Message passing through an inline release store and acquire load of an
 * _Atomic flag (built without -fno-inline-atomics): both are plain movs, no
 * locked instruction, no libatomic call. Only the debug information shows
 * the flag is atomic; --model c11 and rc11 must refuse the program (exit 2)
 * rather than take the flag's accesses for a data race. Correct. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int flag;
static int data;

static void *writer(void *arg) {
  data = 1;
  atomic_store_explicit(&flag, 1, memory_order_release);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  if (atomic_load_explicit(&flag, memory_order_acquire)) assert(data == 1);
  pthread_join(t, 0);
  return 0;
}
