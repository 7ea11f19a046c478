/* Exponential_bug(N) (TRACER, OOPSLA 2018, Table 5; the example of Figure 2
 * of Huang, "Stateless model checking concurrent programs with maximal
 * causality reduction", PLDI 2015, with its assertion left out as there):
 * under a mutex, the first thread twice stores 1 into x, then 1 into y N
 * times; the second twice stores 0 into x under the mutex and, if it then
 * reads x > 0, increments y and stores 2 into x; the third twice checks
 * x > 1 and, unless y = 3 (where the paper's bug is), stores 2 into y.
 * Every access is acquire/release. N is the first argument (default 6).
 * TRACER's own benchmark creates the threads and returns from main without
 * joining them; a second argument "nojoin" does the same (main leaves with
 * pthread_exit, so the threads run to their end): the same weak traces. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int x, y, n = 6;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *first(void *arg) {
  for (int round = 0; round < 2; round++) {
    pthread_mutex_lock(&lock);
    __atomic_store_n(&x, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < n; i++) __atomic_store_n(&y, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

static void *second(void *arg) {
  for (int round = 0; round < 2; round++) {
    pthread_mutex_lock(&lock);
    __atomic_store_n(&x, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    if (__atomic_load_n(&x, __ATOMIC_ACQUIRE) > 0) {
      int v = __atomic_load_n(&y, __ATOMIC_ACQUIRE);
      __atomic_store_n(&y, v + 1, __ATOMIC_RELEASE);
      __atomic_store_n(&x, 2, __ATOMIC_RELEASE);
    }
  }
  return arg;
}

static void *third(void *arg) {
  for (int round = 0; round < 2; round++) {
    if (__atomic_load_n(&x, __ATOMIC_ACQUIRE) > 1) {
      if (__atomic_load_n(&y, __ATOMIC_ACQUIRE) == 3) return arg; /* the paper's bug */
      __atomic_store_n(&y, 2, __ATOMIC_RELEASE);
    }
  }
  return arg;
}

int main(int argc, char **argv) {
  if (argc > 1) n = atoi(argv[1]);
  pthread_t t[3];
  pthread_create(&t[0], 0, first, 0);
  pthread_create(&t[1], 0, second, 0);
  pthread_create(&t[2], 0, third, 0);
  if (argc > 2 && strcmp(argv[2], "nojoin") == 0) pthread_exit(0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  return 0;
}
