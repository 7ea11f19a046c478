/* Bug: a reference count decremented in two steps (load, store). Three
 * users share an object with count 3; each, after a usleep-polled start
 * signal and some work, drops its reference and frees the object when it
 * saw the count reach 0. Two decrements can read the same value: the count
 * never reaches 0 (a leak, asserted by main) or two users free it (a double
 * free, asserted at the free).
 * Depth 2: one user's load and store around another's.
 * Retry style: usleep polling on a start flag. */
#include "bug_common.h"

static long refs = 3, freed, go;
static long priv[3];

static void release(void) {
  long r = LD(refs);
  ST(refs, r - 1); /* BUG: not an atomic decrement */
  if (r - 1 == 0) {
    assert(LD(freed) == 0);
    ST(freed, 1);
  }
}

static void* user(void* arg) {
  long id = (long)arg;
  long polls = 0;
  while (!LD(go)) {
    usleep(10);
    polls++;
  }
  for (int i = 0; i < 2; i++) FAA(priv[id], 1);
  release();
  return (void*)polls;
}

int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, user, (void*)i);
  usleep(100);
  ST(go, 1);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  assert(LD(freed) == 1); /* the count must have reached zero */
  return 0;
}
