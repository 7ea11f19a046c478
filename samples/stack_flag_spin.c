// Main spins on a flag in its own stack until a thread it passed the flag's
// address to sets it. Correct: no bug, no hang.
//
// Under --visible shared (the default) main's loads of its own stack are no
// steps until another thread is seen touching it (agent/OwnMemory.h): main's
// first spin makes no step, until a long quiet run makes its loads steps
// for a burst (spin detection then lets the thread run); the thread's store
// is found touching main's stack, and the exploration starts again with the
// flag shared.
#include <pthread.h>
#include <stdio.h>

static void* setter(void* arg) {
  *(volatile int*)arg = 1;
  return NULL;
}

// Not inlined: the flag is read through a pointer (an instruction site).
__attribute__((noinline)) static void wait_for(volatile int* flag) {
  while (!*flag) {
  }
}

int main(void) {
  int flag = 0;
  pthread_t t;
  pthread_create(&t, NULL, setter, &flag);
  wait_for(&flag);
  pthread_join(t, NULL);
  puts("set");
  return 0;
}
