/* Built with -fsanitize=thread: a flag handed over with C11 atomics. TSan
 * turns each atomic into a call into its runtime (__tsan_atomic32_store
 * ...), which ctrl does not follow yet: ctrl refuses the build in one line
 * rather than miss every interleaving of the atomics. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready;
static int data;

static void* producer(void* arg) {
  (void)arg;
  data = 42;
  atomic_store_explicit(&ready, 1, memory_order_release);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, producer, 0);
  while (!atomic_load_explicit(&ready, memory_order_acquire)) {
  }
  printf("data %d\n", data);
  pthread_join(t, 0);
  return 0;
}
