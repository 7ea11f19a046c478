/* lbzip2's shape: main keeps getpid() before its threads; the worker, when
 * done, signals the process with kill(saved pid, SIGUSR2), and main waits
 * for that signal in sigsuspend. Under ctrl an execution is a process
 * forked from the fork server, whose pid is the one main saved: the signal
 * must reach the execution all the same. Correct: prints "done". */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static pid_t self;
static volatile sig_atomic_t got;
static atomic_int work;

static void on_usr2(int sig) { got = sig; }

static void *worker(void *arg) {
  (void)arg;
  atomic_fetch_add(&work, 1);
  kill(self, SIGUSR2);
  return NULL;
}

int main(void) {
  self = getpid();
  signal(SIGUSR2, on_usr2);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &block, &old); /* the worker inherits it */
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  atomic_fetch_add(&work, 1);
  while (!got) sigsuspend(&old);
  pthread_join(t, NULL);
  printf("done\n");
  return 0;
}
