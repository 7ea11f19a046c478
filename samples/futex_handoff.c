/* A one-shot handoff on a raw futex (syscall(SYS_futex), as GLib's g_futex
 * and libstdc++'s atomic wait do). The waiter sleeps on `word` while it is
 * 0; the setter stores 1 and wakes it. Correct: the waiter re-checks the
 * word the kernel compares, so no wake-up is lost; prints "got 1".
 *
 * With the argument "lost" the waiter checks a separate flag but sleeps on a
 * word nobody changes: a wake-up that comes between its check and its wait
 * is lost, and the waiter sleeps for ever (a deadlock in some interleavings).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int word;
static atomic_int ready;
static int lost;

static long futex(atomic_int *addr, int op, int val) {
  return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static void *waiter(void *arg) {
  (void)arg;
  if (lost) {
    if (!atomic_load(&ready)) futex(&word, FUTEX_WAIT_PRIVATE, 0);
  } else {
    while (atomic_load(&word) == 0) futex(&word, FUTEX_WAIT_PRIVATE, 0);
  }
  printf("got %d\n", lost ? atomic_load(&ready) : atomic_load(&word));
  return NULL;
}

int main(int argc, char **argv) {
  lost = argc > 1 && strcmp(argv[1], "lost") == 0;
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  if (lost)
    atomic_store(&ready, 1);
  else
    atomic_store(&word, 1);
  futex(&word, FUTEX_WAKE_PRIVATE, 1);
  pthread_join(t, NULL);
  return 0;
}
