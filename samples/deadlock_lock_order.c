/* Buggy: two threads take the same two mutexes in opposite orders.
 *
 * If `left` takes A and `right` takes B before either takes its second lock,
 * both wait forever. Natively `left` is usually done before `right` starts,
 * so the program almost always finishes. ctrl reports a deadlock. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int transfers;

static void *left(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  transfers++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void *right(void *arg) {
  (void)arg;
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a); /* opposite order: the bug */
  transfers++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, left, NULL);
  pthread_create(&t2, NULL, right, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("transfers: %d\n", transfers);
  return 0;
}
