/* Buggy: a thread consumes the input (renames it to done.txt), and an
 * update is lost.
 *
 * The input must exist before the run (the test writes it). After ctrl has
 * found the bug the input must be back, so that `ctrl replay`, which runs
 * the program again in the same directory, starts from the same files and
 * reproduces the bug. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int x;

static void *consume(void *arg) {
  (void)arg;
  int v = __atomic_load_n(&x, __ATOMIC_SEQ_CST);
  __atomic_store_n(&x, v + 1, __ATOMIC_SEQ_CST); /* should be a fetch-add */
  assert(rename("input.txt", "done.txt") == 0);
  return NULL;
}

static void *increment(void *arg) {
  (void)arg;
  int v = __atomic_load_n(&x, __ATOMIC_SEQ_CST);
  __atomic_store_n(&x, v + 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int main(void) {
  FILE *in = fopen("input.txt", "r");
  if (!in) {
    fprintf(stderr, "no input.txt\n");
    return 2;
  }
  fclose(in);
  pthread_t a, b;
  pthread_create(&a, NULL, consume, NULL);
  pthread_create(&b, NULL, increment, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(x == 2);
  return 0;
}
