/* Buggy: a ring buffer whose consumers wait under `if` instead of `while`.
 *
 * A consumer woken by a producer's signal re-takes the lock after another
 * consumer may already have taken the item it was woken for; with `if` it
 * does not look again and takes from an empty ring. Natively the second
 * consumer rarely slips in between. ctrl reports the failed assertion. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define SLOTS 4

static struct ring {
  int slot[SLOTS];
  int head, tail, count;
  pthread_mutex_t lock;
  pthread_cond_t not_empty;
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .not_empty = PTHREAD_COND_INITIALIZER};

static int taken[2];

static void put(int v) {
  pthread_mutex_lock(&q.lock);
  q.slot[q.tail] = v;
  q.tail = (q.tail + 1) % SLOTS;
  q.count++;
  pthread_cond_signal(&q.not_empty);
  pthread_mutex_unlock(&q.lock);
}

static int get(void) {
  pthread_mutex_lock(&q.lock);
  if (q.count == 0) pthread_cond_wait(&q.not_empty, &q.lock); /* the bug: `if`, not `while` */
  assert(q.count > 0);
  int v = q.slot[q.head];
  q.head = (q.head + 1) % SLOTS;
  q.count--;
  pthread_mutex_unlock(&q.lock);
  return v;
}

static void *consumer(void *arg) {
  taken[(long)arg] = get();
  return NULL;
}

int main(void) {
  pthread_t c1, c2;
  pthread_create(&c1, NULL, consumer, (void *)0L);
  pthread_create(&c2, NULL, consumer, (void *)1L);
  put(1);
  put(2);
  pthread_join(c1, NULL);
  pthread_join(c2, NULL);
  printf("taken: %d %d\n", taken[0], taken[1]);
  return 0;
}
