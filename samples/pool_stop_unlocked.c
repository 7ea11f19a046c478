/* Buggy: a thread pool whose shutdown sets `stop` without the pool's lock.
 *
 * A worker checks `p->stop` under the lock and then waits on `p->work`. The
 * main thread sets `p->stop = 1` and broadcasts without taking the lock, so
 * both can happen between the worker's check and its wait: the broadcast
 * wakes nobody, the worker waits forever, and main's join never returns.
 * Natively the window is a few instructions wide. ctrl reports a deadlock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct pool {
  pthread_mutex_t lock;
  pthread_cond_t work;
  int pending;
  int stop;
  int done;
};

static void *worker(void *arg) {
  struct pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->pending == 0 && !p->stop) pthread_cond_wait(&p->work, &p->lock);
    if (p->pending == 0) break; /* stopped, nothing left */
    p->pending--;
    p->done++;
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static struct pool *pool_new(void) {
  struct pool *p = calloc(1, sizeof *p);
  if (!p) abort();
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->work, NULL);
  return p;
}

static void pool_submit(struct pool *p) {
  pthread_mutex_lock(&p->lock);
  p->pending++;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->lock);
}

static void pool_stop(struct pool *p) {
  p->stop = 1; /* the bug: without p->lock */
  pthread_cond_broadcast(&p->work);
}

int main(void) {
  struct pool *p = pool_new();
  pthread_t t;
  pthread_create(&t, NULL, worker, p);
  pool_submit(p);
  pool_stop(p);
  pthread_join(t, NULL);
  printf("done: %d\n", p->done);
  free(p);
  return 0;
}
