/* Buggy: a lost wake-up.
 *
 * The waiter checks `ready` before taking the mutex and then waits with `if`
 * instead of re-checking the flag under the lock in a loop. If the signaller
 * sets the flag and signals between the waiter's check and its wait, the
 * signal is lost and the waiter sleeps forever (main then waits for it in
 * pthread_join): ctrl reports a deadlock. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready; /* plain flag, read without the lock: the bug */

static void *waiter(void *arg) {
  (void)arg;
  if (!ready) {
    pthread_mutex_lock(&m);
    pthread_cond_wait(&c, &m); /* should be: while (!ready) wait */
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

static void *signaller(void *arg) {
  (void)arg;
  usleep(100); /* prepares whatever the waiter is waiting for */
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, waiter, NULL);
  pthread_create(&t2, NULL, signaller, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  puts("woken up");
  return 0;
}
