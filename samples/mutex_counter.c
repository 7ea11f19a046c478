/* Correct: three threads increment a mutex-protected counter. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 3, ROUNDS = 2 };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("counter = %d\n", counter);
  assert(counter == THREADS * ROUNDS);
  return 0;
}
