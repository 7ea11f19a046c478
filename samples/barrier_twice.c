/* Two threads meet at a barrier, take turns at a mutex (the first thread
 * three times, the second once) and meet at the barrier again. The second
 * thread's critical section can come before, between or after the first
 * thread's three: 4 orders.
 *
 * Without arguments (buggy): main asserts that the second thread did not
 * come between the first thread's first and second sections. With "count"
 * (correct) nothing is asserted, and the classes are counted: each barrier
 * round has 2 arrival orders (the thread arriving last is the one whose
 * wait returns PTHREAD_BARRIER_SERIAL_THREAD; a thread leaving round 1
 * commutes with the other's arrival at round 2), and the 4 orders of the
 * critical sections are independent of them: 2 * 4 * 2 = 16 classes. The
 * accesses under the mutex follow its order; main only creates and joins. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_barrier_t barrier;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int sections;      // critical sections so far
static int second_after;  // how many of the first thread's sections preceded the second's

static void *first(void *arg) {
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < 3; ++i) {
    pthread_mutex_lock(&m);
    ++sections;
    pthread_mutex_unlock(&m);
  }
  pthread_barrier_wait(&barrier);
  return arg;
}

static void *second(void *arg) {
  pthread_barrier_wait(&barrier);
  pthread_mutex_lock(&m);
  second_after = sections++;
  pthread_mutex_unlock(&m);
  pthread_barrier_wait(&barrier);
  return arg;
}

int main(int argc, char **argv) {
  int count = argc > 1 && strcmp(argv[1], "count") == 0;
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t a, b;
  pthread_create(&a, NULL, first, NULL);
  pthread_create(&b, NULL, second, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("the second thread's section came after %d of the first's\n", second_after);
  if (!count) assert(second_after != 1 && "the second thread came between the first's first and second sections");
  return 0;
}
