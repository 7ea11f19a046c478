// main waits in pause() for a signal whose handler ends the process with
// _exit: a worker thread sends it. Nothing is wrong with the program; ctrl
// must explore it (exit 0), not blame it, not hang, not fail internally.
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int ready;

static void on_usr1(int sig) {
  (void)sig;
  _exit(0);
}

static void* worker(void* arg) {
  (void)arg;
  atomic_store(&ready, 1);
  kill(getpid(), SIGUSR1);
  return NULL;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  for (;;) pause();
}
