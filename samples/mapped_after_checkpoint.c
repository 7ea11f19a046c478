// A lost update on a counter in memory the program maps after its first
// thread, so after the checkpoint: its address, which the trace names, is
// wherever the kernel puts a new mapping (top-down), below every mapping made
// before it, the agent's included. The replay of the bug must find the
// counter at the same address, whatever the size of a file inherited open
// for writing (tests/e2e/inherited_file_replay.sh).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

static atomic_int* counter;

static void* map_counter(void* arg) {
  (void)arg;
  void* p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(p != MAP_FAILED);
  counter = p;
  return NULL;
}

static void* increment(void* arg) {
  (void)arg;
  int seen = atomic_load_explicit(counter, memory_order_relaxed);
  atomic_store_explicit(counter, seen + 1, memory_order_relaxed);
  return NULL;
}

int main(void) {
  pthread_t mapper, a, b;
  pthread_create(&mapper, NULL, map_counter, NULL);
  pthread_join(mapper, NULL);
  pthread_create(&a, NULL, increment, NULL);
  pthread_create(&b, NULL, increment, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(atomic_load(counter) == 2);
  return 0;
}
