/* 40 threads alive at once: more than the 32 a store-buffer model supports
 * (its flush actors take the indices from 32), fewer than the 64 of SC.
 * Under SC threads 32 to 40 are program threads like the others (the agent
 * once took a decision for thread 32 or above for a flush actor's step).
 * Each worker fills its own slot; the last two also add to a shared total
 * under a mutex: DPOR runs exactly 2 executions. */
#include <assert.h>
#include <pthread.h>

#define THREADS 40

static int slot[THREADS];
static int total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* work(void* arg) {
  int i = (int)(long)arg;
  slot[i] = i + 1;
  if (i >= THREADS - 2) {
    pthread_mutex_lock(&lock);
    total += i;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; ++i) pthread_create(&t[i], 0, work, (void*)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], 0);
  for (int i = 0; i < THREADS; ++i) assert(slot[i] == i + 1);
  assert(total == 2 * THREADS - 3);
  return 0;
}
