/* Buggy by design: each worker takes as many steps as its kernel thread id
 * says (modulo 8), while the other runs, and main's assertion always fails.
 * A replay must take the recording's steps: it reads the same thread ids
 * (virtual, in creation order: agent/VirtualThreadIds.h); with the kernel's
 * own it diverged 7 times in 8. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int steps;
static pid_t ids[2];

static void* worker(void* arg) {
  int i = (int)(long)arg;
  /* Through libc's gettid and through syscall(): both are answered. */
  pid_t tid = i == 0 ? gettid() : (pid_t)syscall(SYS_gettid);
  ids[i] = tid;
  for (int k = 0; k < tid % 8; ++k) atomic_fetch_add(&steps, 1);
  /* A thread id the program passes back to the kernel still names it. */
  if (syscall(SYS_tgkill, getpid(), tid, 0) != 0) perror("tgkill");
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("main %d, workers %d %d, %d steps\n", gettid() == getpid(), ids[0], ids[1], atomic_load(&steps));
  fflush(stdout);
  assert(atomic_load(&steps) < 0);
  return 0;
}
