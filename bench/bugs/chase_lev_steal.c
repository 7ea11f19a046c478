/* Bug: a Chase-Lev work-stealing deque whose owner takes the last element
 * by re-reading `top` and storing top+1 instead of a compare-exchange. A
 * thief whose compare-exchange on `top` lands between that re-read and the
 * store takes the same element: it is run twice (asserted at the end).
 * The owner pushes and pops 4 items; two thieves steal until the owner is
 * done, retrying with sched_yield when the deque looks empty.
 * Depth 4: with one element left, a thief must read bottom before the
 * owner's decrement and compare-exchange between the owner's second read of
 * top and its store (three constraints), and the other thief must not take
 * the exposed element first (it must read bottom after the decrement).
 * With one thief the depth is 3. Rare: only the last element of a burst is
 * exposed (docs/PERFORMANCE.md: why PCT does not find it).
 * Retry style: thieves' sched_yield loop (local progress: a count). */
#include "bug_common.h"

#define ITEMS 4
#define SIZE 8
static long top, bottom, buffer[SIZE], owner_done;
static long taken[ITEMS + 1];

static void push(long x) {
  long b = LD(bottom);
  ST(buffer[b % SIZE], x);
  ST(bottom, b + 1);
}

static long pop(void) {
  long b = LD(bottom) - 1;
  ST(bottom, b);
  long t = LD(top);
  if (t > b) {
    ST(bottom, b + 1);
    return 0;
  }
  long x = LD(buffer[b % SIZE]);
  if (t == b) {
    /* The last element: thieves compete for it. BUG: the check and the
     * claim are two steps, not CAS(top, t, t + 1). */
    if (LD(top) != t)
      x = 0;
    else
      ST(top, t + 1);
    ST(bottom, b + 1);
  }
  return x;
}

static long steal(void) {
  long t = LD(top);
  long b = LD(bottom);
  if (t >= b) return 0;
  long x = LD(buffer[t % SIZE]);
  return CAS(top, t, t + 1) ? x : 0;
}

static void run(long x) { FAA(taken[x], 1); }

static void* owner(void* arg) {
  (void)arg;
  for (long i = 1; i <= ITEMS; i += 2) {
    push(i);
    push(i + 1);
    for (long x; (x = pop()) != 0;) run(x);
  }
  ST(owner_done, 1);
  return NULL;
}

static void* thief(void* arg) {
  (void)arg;
  long misses = 0;
  while (!LD(owner_done)) {
    long x = steal();
    if (x)
      run(x);
    else {
      misses++;
      sched_yield();
    }
  }
  return (void*)misses;
}

int main(void) {
  pthread_t o, t1, t2;
  pthread_create(&o, NULL, owner, NULL);
  pthread_create(&t1, NULL, thief, NULL);
  pthread_create(&t2, NULL, thief, NULL);
  pthread_join(o, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  for (int i = 1; i <= ITEMS; i++) assert(LD(taken[i]) == 1);
  return 0;
}
