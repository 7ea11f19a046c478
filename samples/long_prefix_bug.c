/* Buggy: a long deterministic start, then a lost update among mutex
 * sections.
 *
 * As long_prefix_race (main fills a table while the workers wait on a
 * semaphore), then each worker adds one to `hits` without a lock and takes
 * a mutex twice. DPOR reverses the later races (the mutex sections) first:
 * the lost update shows in a later execution, which a checkpointed search
 * starts from a live checkpoint; its trace must still replay from step 0. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#define TABLE 20000

static int table[TABLE];
static sem_t ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static volatile long hits;

static void *worker(void *arg) {
  long id = (long)arg;
  sem_wait(&ready);
  long seen = hits;
  hits = seen + 1;
  for (int i = 0; i < 2; ++i) {
    pthread_mutex_lock(&m);
    total += table[id * 100 + i];
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  if (n < 1000 || n > TABLE) n = TABLE;
  sem_init(&ready, 0, 0);
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)1L);
  pthread_create(&b, NULL, worker, (void *)2L);
  for (int i = 0; i < n; ++i) table[i] = i;
  sem_post(&ready);
  sem_post(&ready);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(hits == 2);
  return total == 602 ? 0 : 1;
}
