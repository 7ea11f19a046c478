/* Built with -fsanitize=thread: message passing with relaxed atomics only.
 * Seeing the flag does not guarantee seeing the data under C11 (no
 * release/acquire), so the assertion can fail under --model c11/rc11, never
 * under sc. Both are atomics (TSan reports no race): what the weak models
 * need from the TSan build is each atomic's memory order, which TSan's
 * calls carry. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int data, flag;

static void* producer(void* arg) {
  (void)arg;
  atomic_store_explicit(&data, 1, memory_order_relaxed);
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, producer, 0);
  if (atomic_load_explicit(&flag, memory_order_relaxed) == 1)
    assert(atomic_load_explicit(&data, memory_order_relaxed) == 1);
  pthread_join(t, 0);
  return 0;
}
