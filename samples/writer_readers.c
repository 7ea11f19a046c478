/* One writer and N readers of one atomic (N from argv, default 8): each reader
 * sees the write or not, independently, so there are exactly 2^N classes of
 * interleavings. Correct (no assertion); used to check DPOR's exact count. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { MAX_READERS = 16 };

static atomic_int x;
static int seen[MAX_READERS];

static void *writer(void *arg) {
  (void)arg;
  atomic_store(&x, 1);
  return NULL;
}

static void *reader(void *arg) {
  seen[(long)arg] = atomic_load(&x);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  if (n < 1 || n > MAX_READERS) return 2;
  pthread_t w, r[MAX_READERS];
  pthread_create(&w, NULL, writer, NULL);
  for (long i = 0; i < n; ++i) pthread_create(&r[i], NULL, reader, (void *)i);
  pthread_join(w, NULL);
  for (int i = 0; i < n; ++i) pthread_join(r[i], NULL);
  return 0;
}
