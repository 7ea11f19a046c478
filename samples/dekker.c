/* Dekker's mutual exclusion with relaxed flags. Correct under sequential
 * consistency; under x86-TSO each thread's flag store can sit in its store
 * buffer while it reads the other's flag, so both may enter. With the
 * argument "fence", a seq_cst fence after each flag store forbids that. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int flag[2], turn;
static int inside;
static int fenced;

static void fence(void) {
  if (fenced) atomic_thread_fence(memory_order_seq_cst);
}

static void *worker(void *arg) {
  int me = (int)(long)arg, other = 1 - me;
  atomic_store_explicit(&flag[me], 1, memory_order_relaxed);
  fence();
  while (atomic_load_explicit(&flag[other], memory_order_relaxed)) {
    if (atomic_load_explicit(&turn, memory_order_relaxed) != me) {
      atomic_store_explicit(&flag[me], 0, memory_order_relaxed);
      while (atomic_load_explicit(&turn, memory_order_relaxed) != me) {
      }
      atomic_store_explicit(&flag[me], 1, memory_order_relaxed);
      fence();
    }
  }
  ++inside;
  assert(inside == 1);
  --inside;
  atomic_store_explicit(&turn, other, memory_order_relaxed);
  atomic_store_explicit(&flag[me], 0, memory_order_relaxed);
  return NULL;
}

int main(int argc, char **argv) {
  fenced = argc > 1 && strcmp(argv[1], "fence") == 0;
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)0L);
  pthread_create(&b, NULL, worker, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
