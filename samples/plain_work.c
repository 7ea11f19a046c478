/* Most of the work in plain memory accesses, little synchronisation (like a
 * Rust tool or a compressor): two threads each sum their own 60,000-element
 * array, then add their sum to a total under a mutex; main checks the total.
 * Correct. Under --visible all every element read is a step and one
 * execution needs more than the default --max-steps; under atomics only the
 * thread and mutex calls are steps. The default (--visible auto) must fall
 * back to atomics and check it, saying what it did not check. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { kElements = 60000 };

static long data[2][kElements];
static long total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *sum(void *arg) {
  long *mine = arg, s = 0;
  for (int i = 0; i < kElements; ++i) s += mine[i];
  pthread_mutex_lock(&lock);
  total += s;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < kElements; ++i) data[t][i] = i % 7;
  pthread_t a, b;
  pthread_create(&a, NULL, sum, data[0]);
  pthread_create(&b, NULL, sum, data[1]);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  long want = 0;
  for (int i = 0; i < kElements; ++i) want += 2 * (i % 7);
  assert(total == want && "a sum was lost");
  printf("total %ld\n", total);
  return 0;
}
