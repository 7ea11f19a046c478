/* A thread blocks every signal with the raw rt_sigprocmask system call (as
 * runtimes that bypass libc do), then dereferences a null pointer. Natively
 * the kernel kills the process with SIGSEGV. Under ctrl the crash must still
 * be reported where it happens, as a crash, with its backtrace: the agent
 * needs its own signals unblocked. Buggy. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static int *volatile target;

static void *worker(void *arg) {
  unsigned long all = ~0ul;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof all);
  *target = 1; /* the crash */
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return 0;
}
