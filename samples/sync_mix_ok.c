/* Correct: a read-write lock, a barrier, a POSIX semaphore, sched_yield and
 * usleep, all used properly.
 *
 * Worker 0 writes the configuration under the write lock before the barrier;
 * after the barrier every worker reads it under a read lock, records what it
 * saw in its own slot and posts a semaphore. Main waits for all the posts,
 * then checks every slot. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

enum { WORKERS = 3 };

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t barrier;
static sem_t finished;
static int config;
static int seen[WORKERS];

static void *worker(void *arg) {
  long id = (long)arg;
  if (id == 0) {
    pthread_rwlock_wrlock(&lock);
    config = 42;
    pthread_rwlock_unlock(&lock);
  } else {
    sched_yield();
  }
  pthread_barrier_wait(&barrier);
  pthread_rwlock_rdlock(&lock);
  seen[id] = config;
  pthread_rwlock_unlock(&lock);
  sem_post(&finished);
  return NULL;
}

int main(void) {
  pthread_t t[WORKERS];
  sem_init(&finished, 0, 0);
  pthread_barrier_init(&barrier, NULL, WORKERS);
  for (long i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < WORKERS; i++) sem_wait(&finished);
  usleep(10);
  for (int i = 0; i < WORKERS; i++) {
    assert(seen[i] == 42);
    pthread_join(t[i], NULL);
  }
  pthread_barrier_destroy(&barrier);
  sem_destroy(&finished);
  puts("all workers saw the configuration");
  return 0;
}
