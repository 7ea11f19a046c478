/* Built with -fsanitize=thread: a correct hand-off through a condition
 * variable. TSan's interceptors find the next pthread_cond_wait by version
 * (GLIBC_2.3.2): the agent's must carry it, or TSan calls libc's and the
 * consumer waits on the real condition, which the model never signals. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER;
static int item, has_item;

static void* producer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  item = 7;
  has_item = 1;
  pthread_cond_signal(&filled);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, producer, 0);
  pthread_mutex_lock(&lock);
  while (!has_item) pthread_cond_wait(&filled, &lock);
  int got = item;
  pthread_mutex_unlock(&lock);
  pthread_join(t, 0);
  printf("got %d\n", got);
  return 0;
}
