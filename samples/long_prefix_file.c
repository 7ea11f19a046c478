/* Correct: a long deterministic start, a short racy part, then a file.
 *
 * As long_prefix_race (main fills a table while the workers wait on a
 * semaphore; the workers then take a mutex twice each), and at its end T1
 * creates long_prefix_file.out in the working directory with O_EXCL: every
 * execution must find the directory as it was before the threads (ctrl
 * undoes each execution's file changes). A live checkpoint's restore does
 * not undo them, so an exploration that started executions from checkpoints
 * after this one would fail the assertion: ctrl uses none once an execution
 * changed a file (controller/CheckpointedSearch.h). The file stays after a
 * run: run it in an empty directory. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <unistd.h>

#define TABLE 20000

static int table[TABLE];
static sem_t ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg) {
  long id = (long)arg;
  sem_wait(&ready);
  for (int i = 0; i < 2; ++i) {
    pthread_mutex_lock(&m);
    total += table[id * 100 + i];
    pthread_mutex_unlock(&m);
  }
  if (id == 1) {
    int fd = open("long_prefix_file.out", O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert(fd >= 0);
    close(fd);
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
  return total == 602 ? 0 : 1;
}
