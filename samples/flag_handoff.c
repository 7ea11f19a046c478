/* A consumer spins on a flag (an acquire load in a loop) until the producer
 * publishes its data (a release store). Built with -fno-inline-atomics, every
 * atomic access is a call into libatomic, where ctrl sees it. The loop's
 * state lives in callee-saved registers and on the stack across the calls:
 * a re-read of the unchanged flag is a spin, so the consumer waits for the
 * producer's store instead of re-reading until --max-steps. Correct: two
 * classes (the consumer's first read before or after the store). With the
 * argument "forget" the producer never publishes: buggy, the consumer hangs. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int ready;
static int data;
static int forget;

static void *consumer(void *arg) {
  while (!atomic_load_explicit(&ready, memory_order_acquire)) {
  }
  assert(data == 42);
  return arg;
}

static void *producer(void *arg) {
  data = 42;
  if (!forget) atomic_store_explicit(&ready, 1, memory_order_release);
  return arg;
}

int main(int argc, char **argv) {
  forget = argc > 1 && argv[1][0] == 'f';
  pthread_t c, p;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(c, NULL);
  pthread_join(p, NULL);
  return 0;
}
