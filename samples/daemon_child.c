/* Buggy: the threads run in a forked child, and lose an update there.
 *
 * The argument says how: daemon (daemon(3): the parent exits at once),
 * wait (fork, the parent waits for the child), exit (fork, the parent
 * exits without waiting) or late (as exit, and the child waits 0.3 s
 * before its threads: with -j 2, a helper session is still in that wait
 * when the explorer's session has found the bug and stops it). ctrl must
 * follow the child that creates the threads and find the lost update. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int x;

static void *increment(void *arg) {
  (void)arg;
  int v = __atomic_load_n(&x, __ATOMIC_SEQ_CST);
  __atomic_store_n(&x, v + 1, __ATOMIC_SEQ_CST); /* should be a fetch-add */
  return NULL;
}

static int work(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, increment, NULL);
  pthread_create(&b, NULL, increment, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(x == 2);
  return 0;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "daemon";
  if (strcmp(how, "daemon") == 0) {
    if (daemon(1, 1) != 0) return 3;
    return work();
  }
  pid_t child = fork();
  if (child < 0) return 3;
  if (child == 0) {
    if (strcmp(how, "late") == 0) usleep(300000);
    _exit(work());
  }
  if (strcmp(how, "wait") == 0) {
    int status;
    if (waitpid(child, &status, 0) != child) return 3;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  return 0;
}
