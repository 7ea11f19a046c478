/* Correct: a stack slot written by a buffered store, then by a call.
 *
 * Under --model tso (and pso) a plain store through a pointer is held in its
 * thread's store buffer. fill() stores to a local array of scribble() that
 * way; scribble() returns and deep() recurses over the same stack bytes:
 * each call pushes its return address there, a write that is no store site
 * (addressed off the stack pointer, or the call itself). The thread must
 * read its return addresses back whatever its buffer still holds: undoing
 * the buffered stores when another thread runs, or flushing them later,
 * must not bring back the array's values (ctrl did: `ret` jumped to 0x100x,
 * a false SIGSEGV, as Rust programs got under --model tso). Prints "ok". */
#include <pthread.h>
#include <stdio.h>

static volatile int shared;

/* Stores through a pointer: visible, buffered. */
__attribute__((noinline)) static void fill(volatile long *p, int n) {
  for (int i = 0; i < n; ++i) p[i] = 0x1000 + i;
}

__attribute__((noinline)) static void scribble(void) {
  volatile long junk[24];
  fill(junk, 24);
}

/* Return addresses go where junk was; the store at the bottom races with
 * the other thread's, so other threads run (and flush) meanwhile. */
__attribute__((noinline)) static int deep(int n) {
  if (n == 0) {
    shared = 1;
    return shared;
  }
  return deep(n - 1) + 1;
}

static void *work(void *arg) {
  (void)arg;
  scribble();
  return (void *)(long)deep(8);
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, work, NULL);
  pthread_create(&t2, NULL, work, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  puts("ok");
  return 0;
}
