/* The state a runner checks only when the execution may have changed it
 * (agent/Rollback.h, note_change; issue 27): each execution first checks that
 * it starts from the checkpoint's, then changes it the ways the agent must
 * notice without asking the kernel: descriptor 0 replaced through libc's own
 * close (fclose), the umask changed by the program's own `syscall`
 * instruction and the alternate signal stack by sigaltstack(). With "timer", a raw alarm() leaves a
 * timer running, which no execution may be rolled back with. */
#define _GNU_SOURCE
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static char stack[65536];

/* A system call the program makes itself, not through libc. */
static long raw(long n, long a, long b) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b) : "rcx", "r11", "memory");
  return r;
}

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  counter++;
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* The umask from /proc (umask() itself would change it). */
static unsigned current_umask(void) {
  FILE* f = fopen("/proc/self/status", "r");
  assert(f);
  char line[256];
  unsigned mask = ~0u;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Umask: %o", &mask) == 1) break;
  fclose(f);
  return mask;
}

int main(int argc, char** argv) {
  int timer = argc > 1 && strcmp(argv[1], "timer") == 0;
  struct stat in;
  if (fstat(0, &in) != 0) {
    assert(open("/dev/null", O_RDONLY) == 0);
    assert(fstat(0, &in) == 0);
  }
  umask(022);

  pthread_t a, b;
  assert(pthread_create(&a, NULL, worker, NULL) == 0);
  /* The checkpoint's state. */
  struct stat now;
  assert(fstat(0, &now) == 0 && now.st_dev == in.st_dev && now.st_ino == in.st_ino);
  assert(current_umask() == 022);
  struct itimerval t;
  assert(getitimer(ITIMER_REAL, &t) == 0 && t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0);
  stack_t old;
  assert(sigaltstack(NULL, &old) == 0 && old.ss_sp != stack); /* the agent's again */

  /* Changed where the agent can only see it by noting the calls. */
  fclose(stdin);
  assert(open("/", O_RDONLY | O_DIRECTORY) == 0);
  assert(raw(SYS_umask, 077, 0) == 022);
  stack_t ss = {.ss_sp = stack, .ss_flags = 0, .ss_size = sizeof stack};
  /* (Through libc: a raw one is made on the agent's alternate stack, where
   * the kernel refuses it.) */
  assert(sigaltstack(&ss, NULL) == 0);
  if (timer) raw(SYS_alarm, 1000, 0);

  assert(pthread_create(&b, NULL, worker, NULL) == 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
  return 0;
}
