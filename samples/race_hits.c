/* A data race: two threads increment `hits` without a lock. At -O2 each
 * increment is one `addl $1, hits(%rip)`; whatever value main prints, the
 * two unordered writes are a data race (undefined behaviour in C11), which
 * ctrl reports under its default options as a data-race bug naming `hits`,
 * both threads and both lines (ThreadSanitizer reports it on the first run).
 * Fix: a mutex around the increment, or an atomic_int. */
#include <pthread.h>
#include <stdio.h>

int hits;

static void *worker(void *arg) {
  (void)arg;
  hits++;
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, NULL);
  pthread_create(&t2, NULL, worker, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("%d\n", hits);
  return 0;
}
