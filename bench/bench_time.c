/* ctrl_bench_time OUT PROGRAM [ARGS...]: runs PROGRAM, writes its wall time
 * in nanoseconds (CLOCK_MONOTONIC, fork to reap) to the file OUT and exits
 * with PROGRAM's status (128+signal if it was killed). PROGRAM's stdout and
 * stderr are inherited. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUT PROGRAM [ARGS...]\n", argv[0]);
    return 125;
  }
  FILE *out = fopen(argv[1], "w");
  if (!out) {
    perror(argv[1]);
    return 125;
  }
  fflush(NULL);
  uint64_t start = now_ns();
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 125;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0) {
  }
  uint64_t elapsed = now_ns() - start;
  fprintf(out, "%llu\n", (unsigned long long)elapsed);
  if (fclose(out) != 0) return 125;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
