/* Correct: a bounded buffer with a mutex and two condition variables; two
 * producers, one consumer, every wait in a while loop. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { CAPACITY = 2, PRODUCERS = 2, ITEMS = 3 };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int buffer[CAPACITY];
static int head, count;

static void put(int v) {
  pthread_mutex_lock(&m);
  while (count == CAPACITY) pthread_cond_wait(&not_full, &m);
  buffer[(head + count) % CAPACITY] = v;
  count++;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&m);
}

static int take(void) {
  pthread_mutex_lock(&m);
  while (count == 0) pthread_cond_wait(&not_empty, &m);
  int v = buffer[head];
  head = (head + 1) % CAPACITY;
  count--;
  pthread_cond_signal(&not_full);
  pthread_mutex_unlock(&m);
  return v;
}

static void *producer(void *arg) {
  int base = (int)(long)arg * 10;
  for (int i = 1; i <= ITEMS; i++) put(base + i);
  return NULL;
}

static void *consumer(void *arg) {
  int *sum = arg;
  for (int i = 0; i < PRODUCERS * ITEMS; i++) *sum += take();
  return NULL;
}

int main(void) {
  pthread_t p[PRODUCERS], c;
  int sum = 0;
  pthread_create(&c, NULL, consumer, &sum);
  for (long i = 0; i < PRODUCERS; i++) pthread_create(&p[i], NULL, producer, (void *)(i + 1));
  for (int i = 0; i < PRODUCERS; i++) pthread_join(p[i], NULL);
  pthread_join(c, NULL);
  /* producer 1 sends 11+12+13, producer 2 sends 21+22+23 */
  printf("sum = %d\n", sum);
  assert(sum == 36 + 66);
  assert(count == 0);
  return 0;
}
