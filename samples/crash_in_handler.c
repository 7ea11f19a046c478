/* Buggy: a signal handler dereferences a pointer another thread may not have
 * set yet.
 *
 * The handler runs with every signal blocked (sa_mask = sigfillset, a common
 * idiom). The kernel kills a process whose fault signal is blocked, without
 * any handler running; ctrl keeps the fault signals deliverable, so the
 * crash is reported like any other, with its address and backtrace. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

static int value = 42;
static _Atomic(int *) shared;
static volatile int result;

static void on_usr1(int sig) {
  (void)sig;
  result = *atomic_load(&shared); /* NULL if the publisher has not run yet */
}

static void *publisher(void *arg) {
  (void)arg;
  atomic_store(&shared, &value);
  return NULL;
}

static void *signaller(void *arg) {
  (void)arg;
  raise(SIGUSR1);
  return NULL;
}

int main(void) {
  struct sigaction act = {0};
  act.sa_handler = on_usr1;
  sigfillset(&act.sa_mask);
  sigaction(SIGUSR1, &act, NULL);
  pthread_t a, b;
  pthread_create(&a, NULL, publisher, NULL);
  pthread_create(&b, NULL, signaller, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
