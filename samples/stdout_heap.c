/* Output, then a heap allocation whose address the trace records.
 *
 * libc allocates stdout's buffer on the heap at the first printf, sized by
 * what descriptor 1 is: 1024 bytes for a terminal, 4096 for /dev/null or a
 * pipe. An execution without --show-output writes to /dev/null, a replay
 * with --show-output in a terminal to the terminal, so every later heap
 * address moved by 3 KiB and the replay diverged at the store below. The
 * agent now gives the standard streams static buffers.
 *
 * The bug (main's check) needs the worker's store to come after main's. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int *volatile shared;

static void *worker(void *arg) {
  (void)arg;
  while (!shared) {
  }
  *shared = 2;
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  printf("allocating\n");
  int *p = malloc(100);
  *p = 1;
  shared = p;
  pthread_join(t, NULL);
  assert(*p == 1);
  free(p);
  return 0;
}
