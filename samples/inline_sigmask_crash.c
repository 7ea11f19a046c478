/* raw_sigmask_crash with an inline `syscall` instruction instead of libc's
 * syscall(): a thread blocks every signal itself, then dereferences a null
 * pointer. Under ctrl the crash must still be reported where it happens,
 * with its backtrace (the instruction is a system call site: the agent
 * keeps its own signals unblocked). Buggy. */
#include <pthread.h>
#include <stddef.h>

#define SYS_RT_SIGPROCMASK 14
#define SIG_BLOCK_HOW 0

static int *volatile target;

static void *worker(void *arg) {
  unsigned long all = ~0ul;
  long ret;
  register long r10 __asm__("r10") = sizeof all;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "0"((long)SYS_RT_SIGPROCMASK), "D"((long)SIG_BLOCK_HOW), "S"(&all), "d"(0L), "r"(r10)
                   : "rcx", "r11", "memory");
  *target = 1; /* the crash */
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return 0;
}
