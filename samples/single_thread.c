/* Correct: no threads at all (a mutex and sched_yield still make a few
 * visible operations). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
  int sum = 0;
  for (int i = 1; i <= 4; i++) {
    pthread_mutex_lock(&m);
    sum += i;
    pthread_mutex_unlock(&m);
    sched_yield();
  }
  printf("sum = %d\n", sum);
  assert(sum == 10);
  return 0;
}
