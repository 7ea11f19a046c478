/* Built with -fsanitize=thread: a correct program (a counter under a lock).
 * Under ctrl it runs clean in every interleaving: TSan's state is put back
 * with the program's memory before each execution (without that, the
 * second execution reported a false race on `total`). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void* work(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++total;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  printf("total %d\n", total);
  return 0;
}
