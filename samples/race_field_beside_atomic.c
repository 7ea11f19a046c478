/* A data race on a plain field that shares an 8-byte word with an atomic one
 * (issue 22, item 15): `box.z` is written by one thread and read by another
 * with nothing ordering them, while `box.x` beside it is a correct atomic
 * counter. A check that takes the whole word for atomic (a plain access
 * there for an inline atomic) misses it; per byte, `z` is plain and its
 * race is reported (ctrl: data-race on box.z, under --model sc with inline
 * atomics, and under --model rc11 built with -fno-inline-atomics -latomic). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static struct {
  atomic_int x;
  int z;
} box;

static int seen;

static void *writer(void *arg) {
  (void)arg;
  atomic_fetch_add(&box.x, 1);
  box.z = 42;
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  atomic_fetch_add(&box.x, 1);
  seen = box.z;
  return NULL;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  printf("x %d, z %d, seen %d\n", atomic_load(&box.x), box.z, seen);
  return 0;
}
