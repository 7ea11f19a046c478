/* A program that copies some of its own code and runs the copy, as a JIT
 * moving its built-in code does (V8's short builtin calls). `bump` is an
 * atomic increment short enough that ctrl patches it with an int3; the copy
 * carries that int3 to a place no trampoline stands behind. ctrl must say
 * it cannot follow (exit 2), not report a SIGTRAP crash of the program. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* lock incl (%rdi); ret: 4 bytes, too short for a jump patch. */
__asm__(".text\n.globl bump\n.type bump,@function\nbump:\n\tlock incl (%rdi)\n\tret\n.size bump, .-bump\n");
void bump(int *p);

static int counter;

static void *work(void *arg) {
  bump(&counter);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 3;
  memcpy(page, (const void *)bump, 16);
  ((void (*)(int *))page)(&counter);
  pthread_join(t, NULL);
  printf("counter %d\n", counter);
  return counter == 2 ? 0 : 1;
}
