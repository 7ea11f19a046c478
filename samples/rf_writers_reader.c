// Reads-from equivalence (--equivalence rf, issue 23): N writer threads each
// store their number into x, one reader reads x once. The reader reads the
// initial value or one of the N stores: N+1 reads-from classes, where the
// Mazurkiewicz classes also order the N stores among themselves: N! * (N+1)
// (the reader before, between or after them). With the argument "bug" the
// reader asserts that it did not read writer N's store: one of the N+1
// classes fails.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define N 4

static _Atomic int x;
static int bug;

static void *writer(void *arg) {
  atomic_store_explicit(&x, (int)(long)arg, memory_order_relaxed);
  return 0;
}

static void *reader(void *arg) {
  (void)arg;
  int v = atomic_load_explicit(&x, memory_order_relaxed);
  assert(v >= 0 && v <= N);
  if (bug) assert(v != N);
  return 0;
}

int main(int argc, char **argv) {
  bug = argc > 1 && strcmp(argv[1], "bug") == 0;
  pthread_t w[N], r;
  for (long i = 0; i < N; i++) pthread_create(&w[i], 0, writer, (void *)(i + 1));
  pthread_create(&r, 0, reader, 0);
  for (int i = 0; i < N; i++) pthread_join(w[i], 0);
  pthread_join(r, 0);
  return 0;
}
