/* Correct: a long deterministic start, then a short racy part.
 *
 * The main thread fills a table (20000 visible stores) while both workers
 * wait for it on a semaphore; then the workers each take a mutex three
 * times. Every interleaving shares the whole start: DPOR's executions
 * differ only after it, which is where live checkpoints let an exploration
 * start instead of re-running the table from the first thread creation
 * (docs/PERFORMANCE.md). Arguments: the table's size (1000..20000) and the
 * rounds of computation per entry (default 0). */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define TABLE 20000

static int table[TABLE];
static sem_t ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

/* `work` rounds of arithmetic in registers (no visible operation): a start
 * whose cost is computation rather than visible steps. */
static int computed(int i, long work) {
  unsigned long h = (unsigned long)i;
  for (long k = 0; k < work; ++k) {
    h = h * 2654435761u + (unsigned long)k;
    __asm__ volatile("" : "+r"(h));
  }
  return i;
}

static void *worker(void *arg) {
  long id = (long)arg;
  sem_wait(&ready);
  for (int i = 0; i < 3; ++i) {
    pthread_mutex_lock(&m);
    total += table[id * 100 + i];
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : TABLE;
  long work = argc > 2 ? atol(argv[2]) : 0;
  if (n < 1000 || n > TABLE) n = TABLE;
  sem_init(&ready, 0, 0);
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)1L);
  pthread_create(&b, NULL, worker, (void *)2L);
  for (int i = 0; i < n; ++i) table[i] = work ? computed(i, work) : i;
  sem_post(&ready);
  sem_post(&ready);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("total %ld\n", total);
  return total == 906 ? 0 : 1;
}
