/* Built with -fsanitize=address. Two threads append to a two-slot array
 * that already holds one item: each checks that a slot is free, then writes
 * slot `used`, re-reading it. When the other thread takes the last slot in
 * between, the write lands one past the end of the heap block: ASan reports
 * a heap-buffer-overflow, and ctrl must make that report the bug. Natively
 * the threads rarely interleave there. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int* slots;
static volatile int used = 1; /* re-read at each use, as the check-then-act bug needs */

static void* add(void* arg) {
  (void)arg;
  if (used < 2) {
    slots[used] = 7;
    used = used + 1;
  }
  return 0;
}

int main(void) {
  slots = calloc(2, sizeof *slots);
  pthread_t a, b;
  pthread_create(&a, 0, add, 0);
  pthread_create(&b, 0, add, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("used %d\n", used);
  free(slots);
  return 0;
}
