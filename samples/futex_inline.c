/* A futex handoff made with inline `syscall` instructions in the program's
 * own code (as libgomp's futex wrappers are), not through libc. Correct:
 * prints "got 1". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define SYS_FUTEX 202
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

static atomic_int word;

static long raw_futex(atomic_int *addr, long op, long val) {
  long ret;
  register long r10 __asm__("r10") = 0;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "0"((long)SYS_FUTEX), "D"(addr), "S"(op), "d"(val), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
}

static void *waiter(void *arg) {
  (void)arg;
  while (atomic_load(&word) == 0) raw_futex(&word, FUTEX_WAIT_PRIVATE, 0);
  printf("got %d\n", atomic_load(&word));
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  atomic_store(&word, 1);
  raw_futex(&word, FUTEX_WAKE_PRIVATE, 1);
  pthread_join(t, NULL);
  return 0;
}
