/* xz's shape: the status flags of a descriptor (here O_NONBLOCK on a pipe
 * made before the threads) belong to the open file description, which
 * every execution shares with the checkpoint. The program sets the flag
 * on its way out, as xz clears it on its stdout; each execution must start
 * with the flags of the checkpoint all the same. The thread and main race
 * on `shared`, so DPOR runs two executions. Correct: exits 0. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static volatile int shared;

static void *worker(void *arg) {
  (void)arg;
  int flags = fcntl(fds[0], F_GETFL);
  assert(!(flags & O_NONBLOCK)); /* as at the checkpoint */
  shared = 1;
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  int seen = shared;
  pthread_join(t, NULL);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  printf("seen %d\n", seen);
  return 0;
}
