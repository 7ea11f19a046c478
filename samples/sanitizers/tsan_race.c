/* Built with -fsanitize=thread: a plain data race (two threads increment a
 * counter without a lock). ThreadSanitizer reports it in any interleaving;
 * under ctrl its report is the bug (kind sanitizer, "WARNING:
 * ThreadSanitizer: data race"), and the trace replays it. */
#include <pthread.h>
#include <stdio.h>

static int hits;

static void* work(void* arg) {
  (void)arg;
  ++hits;
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  printf("hits %d\n", hits);
  return 0;
}
