/* Buggy: a thread waits in the kernel for something that never comes from
 * outside the program (a read from a pipe nobody writes), or, with "sleep",
 * sleeps natively for 3 s through a raw system call that ctrl does not see.
 *
 * Either way the thread uses no CPU time: with --hang-timeout 1 ctrl reports
 * a hang that says so and names the system call ("blocked in the kernel in
 * read"), rather than claiming the thread ran for a second. */
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *worker(void *arg) {
  if (arg) {
    struct timespec ts = {3, 0};
    syscall(SYS_nanosleep, &ts, NULL);
    return NULL;
  }
  int fds[2];
  char c;
  if (pipe(fds) == 0) (void)!read(fds[0], &c, 1); /* nobody writes: forever */
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t;
  pthread_create(&t, NULL, worker, argc > 1 && strcmp(argv[1], "sleep") == 0 ? (void *)1 : NULL);
  pthread_join(t, NULL);
  return 0;
}
