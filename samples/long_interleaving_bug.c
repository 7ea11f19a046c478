/* A bug at the end of a long execution: two workers make 2000 atomic
 * increments each, and main's assertion fails in every execution. Under
 * --strategy random the interleaving changes thread at about every other
 * step; ctrl's report shows its shape (the first steps, the changes of
 * thread nearest the bug, the last steps), not all of its 4009 steps. */
#include <assert.h>
#include <pthread.h>

static long x;

static void *work(void *arg) {
  for (int i = 0; i < 2000; i++) __atomic_fetch_add(&x, 1, __ATOMIC_SEQ_CST);
  return arg;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  assert(x != 4000);
  return 0;
}
