/* Built with -fsanitize=address: correct (each thread allocates, fills and
 * frees its own block, then adds to a counter under a lock). ctrl must run
 * it with ASan's runtime first and find nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void* work(void* arg) {
  int n = *(int*)arg;
  int* block = malloc(n * sizeof *block);
  int sum = 0;
  for (int i = 0; i < n; ++i) block[i] = i;
  for (int i = 0; i < n; ++i) sum += block[i];
  free(block);
  pthread_mutex_lock(&lock);
  total += sum;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  int sizes[2] = {4, 5};
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, work, &sizes[i]);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  printf("total %d\n", total);
  return total == 16 ? 0 : 1;
}
