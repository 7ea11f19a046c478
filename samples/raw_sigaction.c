/* Signal actions set and read with the raw rt_sigaction system call (the
 * kernel's struct layout), mixed with libc's sigaction: each must see what
 * the other set. Then a null dereference runs the program's own SIGSEGV
 * handler, which exits cleanly. Correct: prints "handled" and exits 0. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct kernel_sigaction {
  void *handler;
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};

static int *volatile target;

/* x86-64 delivers a signal only with a restorer (SA_RESTORER); this handler
 * never returns, so it is never called. */
#define KERNEL_SA_RESTORER 0x04000000ul
static void no_return(void) { _exit(4); }

static void on_segv(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  static const char msg[] = "handled\n";
  if (info->si_addr == NULL && write(1, msg, sizeof msg - 1) > 0) _exit(0);
  _exit(3);
}

static void *worker(void *arg) {
  *target = 1;
  return arg;
}

int main(void) {
  struct kernel_sigaction act = {0}, back = {0};
  act.handler = (void *)on_segv;
  act.flags = SA_SIGINFO | KERNEL_SA_RESTORER;
  act.restorer = no_return;
  act.mask = 1ul << (SIGUSR1 - 1);
  if (syscall(SYS_rt_sigaction, SIGSEGV, &act, NULL, sizeof act.mask) != 0) return 10;
  struct sigaction seen;
  if (sigaction(SIGSEGV, NULL, &seen) != 0 || seen.sa_sigaction != on_segv || !(seen.sa_flags & SA_SIGINFO) ||
      !sigismember(&seen.sa_mask, SIGUSR1))
    return 11;
  if (syscall(SYS_rt_sigaction, SIGSEGV, NULL, &back, sizeof back.mask) != 0 || back.handler != (void *)on_segv ||
      !(back.flags & SA_SIGINFO) || !(back.mask & (1ul << (SIGUSR1 - 1))))
    return 12;
  if (syscall(SYS_rt_sigaction, SIGSEGV, NULL, &back, 4) != -1) return 13; /* a wrong set size is refused */
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return 14;
}
