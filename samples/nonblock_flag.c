/* xz's shape: the status flags of a descriptor (here O_NONBLOCK on a pipe
 * made before the threads) belong to the open file description, which
 * every execution shares with the checkpoint. The program sets the flag
 * on its way out, as xz clears it on its stdout; each execution must start
 * with the flags of the checkpoint all the same. The thread and main race
 * on `shared`, so DPOR runs two executions. Correct: exits 0.
 *
 * argv[1] names how the flag is set (a runner checks the flags only after
 * an execution that may have changed them, Rollback.h kStatusFlags):
 *   fcntl (default), syscall (libc's syscall()), ioctl (FIONBIO), fdopen
 *   (mode "a" adds O_APPEND to the
 *   write end), and from another process that inherited the pipe, which
 *   execs this program as "setfl FD": fork, spawn (posix_spawn). */
#define _GNU_SOURCE
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int fds[2];
static volatile int shared;

static void *worker(void *arg) {
  (void)arg;
  /* As at the checkpoint. */
  assert(!(fcntl(fds[0], F_GETFL) & O_NONBLOCK));
  assert(!(fcntl(fds[1], F_GETFL) & O_APPEND));
  shared = 1;
  return NULL;
}

static void set_in_child(const char *self, const char *how) {
  char fd[16];
  snprintf(fd, sizeof fd, "%d", fds[0]);
  char *argv[] = {(char *)self, "setfl", fd, NULL};
  self = "/proc/self/exe";
  pid_t pid = -1;
  if (strcmp(how, "spawn") == 0) {
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0) exit(2);
  } else {
    pid = fork();
    if (pid == 0) {
      execv(self, argv);
      _exit(2);
    }
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) exit(2);
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "setfl") == 0) {
    int fd = atoi(argv[2]);
    return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 ? 0 : 2;
  }
  const char *how = argc > 1 ? argv[1] : "fcntl";
  if (pipe(fds) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  int seen = shared;
  pthread_join(t, NULL);
  if (strcmp(how, "fcntl") == 0) {
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  } else if (strcmp(how, "syscall") == 0) {
    syscall(SYS_fcntl, fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  } else if (strcmp(how, "ioctl") == 0) {
    int on = 1;
    ioctl(fds[0], FIONBIO, &on);
  } else if (strcmp(how, "fdopen") == 0) {
    FILE *f = fdopen(fds[1], "a");
    if (!f) return 2;
  } else {
    set_in_child(argv[0], how);
  }
  printf("seen %d\n", seen);
  return 0;
}
