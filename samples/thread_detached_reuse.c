/* Detached threads whose pthread_t libc gives to later threads, and joins of
 * threads that may have exited already.
 *
 * Each of 8 rounds starts a detached helper, which posts a semaphore, then a
 * joinable worker. Once the helper has exited, libc puts its stack and
 * descriptor back in its cache and the worker gets the helper's pthread_t.
 * The join must find the worker, not the finished helper that had the value
 * before (it did: the join then waited in libc for a worker ctrl never
 * scheduled, a false hang). A detached thread's index is never reused
 * (nothing orders its end before a later creation), so 17 threads exist
 * here.
 *
 * The worker adds the round to a total under a mutex; main reads it only
 * after the join. Nothing races: the result is the same in every schedule. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define ROUNDS 8

static sem_t helped;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *helper(void *arg) {
  (void)arg;
  sem_post(&helped);
  return NULL;
}

static void *worker(void *arg) {
  pthread_mutex_lock(&lock);
  total += (long)arg;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  sem_init(&helped, 0, 0);
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  for (long r = 1; r <= ROUNDS; ++r) {
    pthread_t h, w;
    pthread_create(&h, &detached, helper, NULL);
    sem_wait(&helped);
    pthread_create(&w, NULL, worker, (void *)r);
    int err = pthread_join(w, NULL);
    assert(err == 0);
    pthread_mutex_lock(&lock);
    assert(total == r * (r + 1) / 2);
    pthread_mutex_unlock(&lock);
  }
  printf("total %ld\n", total);
  return 0;
}
