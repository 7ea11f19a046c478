/* Signal masks are per thread, and the kernel keeps them per kernel thread.
 * Under user-level hand-offs (agent/Runtime.h) a thread may run on another
 * thread's kernel thread, and a new thread may start there: each must still
 * see its own mask. main blocks SIGUSR2 and creates two workers, which
 * inherit that mask; the first also blocks SIGUSR1. Between the mask calls
 * the threads take turns on a mutex, so the calls come on every kernel
 * thread in some interleaving. Correct: no assertion fails in any of them. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int turns;

static int blocked(int sig) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, 0, &now);
  return sigismember(&now, sig);
}

static void take_turns(void) {
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&m);
    turns++;
    pthread_mutex_unlock(&m);
  }
}

static void *blocker(void *arg) {
  assert(blocked(SIGUSR2) && !blocked(SIGUSR1));
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &one, 0);
  take_turns();
  assert(blocked(SIGUSR1) && blocked(SIGUSR2));
  return arg;
}

static void *inheritor(void *arg) {
  take_turns();
  assert(blocked(SIGUSR2) && !blocked(SIGUSR1));
  return arg;
}

int main(void) {
  sigset_t two;
  sigemptyset(&two);
  sigaddset(&two, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &two, 0);
  pthread_t a, b;
  pthread_create(&a, 0, blocker, 0);
  pthread_create(&b, 0, inheritor, 0);
  take_turns();
  assert(!blocked(SIGUSR1) && blocked(SIGUSR2));
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
