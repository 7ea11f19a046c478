/* A thread waits for SIGUSR1, which main sends it with pthread_kill. Modes:
 * "timedwait" (default): sigtimedwait without a time-out, the signal
 * blocked; "suspend": sigsuspend with a handler. Both threads first count
 * themselves in `arrived` (so that the waiter may be first to wait).
 * Correct: prints "woken by 10". */
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t got;
static int suspend;
static atomic_int arrived;

static void on_usr1(int sig) { got = sig; }

static void *waiter(void *arg) {
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  atomic_fetch_add(&arrived, 1);
  if (suspend) {
    sigset_t none;
    sigemptyset(&none);
    while (!got) sigsuspend(&none);
  } else {
    int sig = sigtimedwait(&set, NULL, NULL);
    if (sig > 0) got = sig;
  }
  printf("woken by %d\n", (int)got);
  return NULL;
}

int main(int argc, char **argv) {
  suspend = argc > 1 && strcmp(argv[1], "suspend") == 0;
  signal(SIGUSR1, on_usr1);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL);  /* inherited by the waiter */
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  atomic_fetch_add(&arrived, 1);
  pthread_kill(t, SIGUSR1);
  pthread_join(t, NULL);
  return 0;
}
