/* One race between the first and the last event of an execution of some
 * 60000 events: main writes `x` and walks its own array; the thread walks
 * its own and then reads `x`. DPOR's analysis of that race looks at every
 * event in between (the thread's); it must take a fraction of a second,
 * and ctrl must honour --time-limit while it runs. Correct. */
#include <pthread.h>
#include <stdio.h>

#define N 30000
static volatile int x;
static volatile int a[N], b[N];

static void *worker(void *arg) {
  (void)arg;
  int sum = 0;
  for (int i = 0; i < N; ++i) sum += a[i];
  return (void *)(long)(sum + x);
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  x = 1;
  int sum = 0;
  for (int i = 0; i < N; ++i) sum += b[i];
  void *r;
  pthread_join(t, &r);
  printf("%d\n", sum + (int)(long)r);
  return 0;
}
