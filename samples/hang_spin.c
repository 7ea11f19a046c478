/* Buggy: a busy-wait for a state that may already be gone.
 *
 * The worker announces READY (and posts a semaphore), works for a moment and
 * moves on to DONE. The watcher, woken by the semaphore, spins until it sees
 * READY, with no synchronisation inside the loop. If the worker has already
 * moved on to DONE when the watcher first looks, nobody ever sets READY
 * again and the watcher spins forever: ctrl reports a hang (nothing inside
 * the loop is a visible operation). Natively the watcher is usually woken
 * well within the worker's pause, so the program finishes. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

enum { STARTING, READY, DONE };

static volatile int state = STARTING;
static sem_t announced;

static void *worker(void *arg) {
  (void)arg;
  state = READY;
  sem_post(&announced);
  usleep(1000); /* "long enough" for the watcher to notice: the bug */
  state = DONE;
  return NULL;
}

static void *watcher(void *arg) {
  (void)arg;
  sem_wait(&announced);
  while (state != READY) { /* should be: state >= READY */
  }
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  sem_init(&announced, 0, 0);
  pthread_create(&t1, NULL, watcher, NULL);
  pthread_create(&t2, NULL, worker, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  sem_destroy(&announced);
  puts("watcher saw READY");
  return 0;
}
