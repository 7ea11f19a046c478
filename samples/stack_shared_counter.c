// A counter on main's stack, passed by address to two threads: the two
// threads and main each add 1 without a lock, so one update can be lost.
//
// Under --visible shared (the default) main's accesses to its own stack are
// not steps until another thread is seen touching them (agent/OwnMemory.h):
// the first exploration finds the threads writing main's stack, and the
// exploration starts again with that memory shared, where the lost update
// between main's increment and a thread's is found (assertion).
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

// Not inlined: the increment is an access through a pointer (an
// instruction site), in main as in the threads.
__attribute__((noinline)) static void bump(int* counter) {
  int seen = *(volatile int*)counter;
  *(volatile int*)counter = seen + 1;
}

static void* worker(void* arg) {
  bump(arg);
  return NULL;
}

int main(void) {
  int counter = 0;
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, &counter);
  bump(&counter);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("counter = %d\n", counter);
  assert(counter == 3);
  return 0;
}
