/* Bug: a Chase-Lev work-stealing deque whose thief claims an element by
 * re-reading `top` and storing top+1 instead of a compare-exchange (issue
 * 22, item 18). The owner pushes 12 tasks in bursts of 3 and pops them; a
 * thief steals until the owner is done, retrying with sched_yield when the
 * deque looks empty. A thief that checks `top` and is preempted before its
 * store while the owner takes that same element, the last one, by its
 * compare-exchange on `top`, runs that task twice: the assertion in main
 * fails. Two preemptions at most: the thief reads `bottom` before the
 * owner's pop lowers it and is preempted after its check; the owner's
 * compare-exchange comes before the thief's store. Both threads then merge
 * their counts into shared statistics (atomic adds that race): a
 * depth-first search (DPOR) reverses those races first, far too many
 * interleavings for it ever to come back to the deque. Every access is a
 * libatomic call (built with -fno-inline-atomics), so ordering is
 * sequentially consistent: the bug is in the algorithm, not in a missing
 * fence. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

#define LD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

#define TASKS 12
#define BURST 3
#define SIZE 16
static long top, bottom, buffer[SIZE], owner_done;
#define MERGE 40
static long runs[TASKS + 1], stats;

/* Both threads publish what they did, one unit at a time. */
static void merge(void) {
  for (int i = 0; i < MERGE; i++) __atomic_fetch_add(&stats, 1, __ATOMIC_SEQ_CST);
}

static int cas(long* p, long expected, long desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

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
    if (!cas(&top, t, t + 1)) x = 0;
    ST(bottom, b + 1);
  }
  return x;
}

static long steal(void) {
  long t = LD(top);
  long b = LD(bottom);
  if (t >= b) return 0;
  long x = LD(buffer[t % SIZE]);
  if (LD(top) != t) return 0; /* BUG: check, then claim: not cas(&top, t, t + 1) */
  ST(top, t + 1);
  return x;
}

static void run(long x) { __atomic_fetch_add(&runs[x], 1, __ATOMIC_SEQ_CST); }

static void* owner(void* arg) {
  (void)arg;
  for (long i = 1; i <= TASKS; i += BURST) {
    for (long k = 0; k < BURST; k++) push(i + k);
    for (long x; (x = pop()) != 0;) run(x);
  }
  ST(owner_done, 1);
  merge();
  return NULL;
}

static void* thief(void* arg) {
  (void)arg;
  while (!LD(owner_done)) {
    long x = steal();
    if (x)
      run(x);
    else
      sched_yield();
  }
  merge();
  return NULL;
}

int main(void) {
  pthread_t o, t;
  pthread_create(&o, NULL, owner, NULL);
  pthread_create(&t, NULL, thief, NULL);
  pthread_join(o, NULL);
  pthread_join(t, NULL);
  for (int i = 1; i <= TASKS; i++) assert(LD(runs[i]) == 1);
  return 0;
}
