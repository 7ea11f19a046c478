/* Buggy: a thread waits for a flag that no thread ever sets.
 *
 * The waiter busy-waits on a plain volatile int; the worker that should set
 * it "forgets" to (it only does its own work). Natively the program never
 * ends. Under ctrl every read of the flag is a visible load: the waiter
 * re-reads the same value with nothing written, so it is made to wait for a
 * write to the flag; once the worker and main can do nothing else either,
 * no thread can ever write it, and ctrl reports a hang at once, in the first
 * execution, without waiting for --hang-timeout. */
#include <pthread.h>
#include <stdio.h>

static volatile int go;
static int work;

static void *waiter(void *arg) {
  (void)arg;
  while (!go) {
  }
  return NULL;
}

static void *worker(void *arg) {
  (void)arg;
  work = 42; /* should also set go = 1 */
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, waiter, NULL);
  pthread_create(&t2, NULL, worker, NULL);
  pthread_join(t2, NULL);
  pthread_join(t1, NULL);
  printf("work = %d\n", work);
  return 0;
}
