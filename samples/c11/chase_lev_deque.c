/* The Chase-Lev work-stealing deque in the C11 form of Lê, Pop, Cohen and
 * Zappa Nardelli (PPoPP 2013), as CDSChecker checked it (Norris and Demsky,
 * TOPLAS 2016, where it found a new bug: a steal running while a push
 * resizes the array loads an element of the new array that was never
 * written, an uninitialised load). The owner pushes and takes at the
 * bottom, a thief steals at the top; a push into a full array copies the
 * live elements into one twice as big and publishes it. Every atomic is a
 * libatomic call (-fno-inline-atomics); fences are libatomic's
 * atomic_thread_fence function (the builtin is inline: nothing at all for
 * acquire and release).
 *
 * The buggy version publishes the new array with a relaxed store: a thief
 * that loads it (acquire) does not synchronise with the copy, so under C11
 * the element it then loads may be the new array's uninitialised contents
 * (malloc'd, never written for that index by anyone it is ordered after),
 * and it returns a value nobody pushed (the assertion). C11_FIXED: a
 * release store. Under SC both are correct. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define EMPTY -1L
#define ABORT -2L

struct array {
  long size;     /* a relaxed atomic, as in CDSChecker's port (a plain field would race too) */
  long buffer[]; /* atomics */
};

static long top, bottom;
static struct array *array;

static long size_of(struct array *a) { return __atomic_load_n(&a->size, __ATOMIC_RELAXED); }

static struct array *new_array(long size) {
  struct array *a = malloc(sizeof *a + size * sizeof(long)); /* elements left uninitialised */
  __atomic_store_n(&a->size, size, __ATOMIC_RELAXED);
  return a;
}

static void resize(void) {
  struct array *a = __atomic_load_n(&array, __ATOMIC_RELAXED);
  long t = __atomic_load_n(&top, __ATOMIC_RELAXED);
  long b = __atomic_load_n(&bottom, __ATOMIC_RELAXED);
  struct array *bigger = new_array(size_of(a) * 2);
  for (long i = t; i < b; i++) {
    long x = __atomic_load_n(&a->buffer[i % size_of(a)], __ATOMIC_RELAXED);
    __atomic_store_n(&bigger->buffer[i % size_of(bigger)], x, __ATOMIC_RELAXED);
  }
#ifdef C11_FIXED
  __atomic_store_n(&array, bigger, __ATOMIC_RELEASE);
#else
  __atomic_store_n(&array, bigger, __ATOMIC_RELAXED);
#endif
  /* The old array stays allocated: a thief may still be reading it. */
}

static void push(long x) {
  long b = __atomic_load_n(&bottom, __ATOMIC_RELAXED);
  long t = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
  struct array *a = __atomic_load_n(&array, __ATOMIC_RELAXED);
  if (b - t > size_of(a) - 1) {
    resize();
    a = __atomic_load_n(&array, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&a->buffer[b % size_of(a)], x, __ATOMIC_RELAXED);
  (atomic_thread_fence)(memory_order_release);
  __atomic_store_n(&bottom, b + 1, __ATOMIC_RELAXED);
}

static long take(void) {
  long b = __atomic_load_n(&bottom, __ATOMIC_RELAXED) - 1;
  struct array *a = __atomic_load_n(&array, __ATOMIC_RELAXED);
  __atomic_store_n(&bottom, b, __ATOMIC_RELAXED);
  (atomic_thread_fence)(memory_order_seq_cst);
  long t = __atomic_load_n(&top, __ATOMIC_RELAXED);
  long x;
  if (t <= b) {
    x = __atomic_load_n(&a->buffer[b % size_of(a)], __ATOMIC_RELAXED);
    if (t == b) { /* the last element: race the thieves for it */
      if (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) x = EMPTY;
      __atomic_store_n(&bottom, b + 1, __ATOMIC_RELAXED);
    }
  } else {
    x = EMPTY;
    __atomic_store_n(&bottom, b + 1, __ATOMIC_RELAXED);
  }
  return x;
}

static long steal(void) {
  long t = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
  (atomic_thread_fence)(memory_order_seq_cst);
  long b = __atomic_load_n(&bottom, __ATOMIC_ACQUIRE);
  long x = EMPTY;
  if (t < b) {
    /* consume in the paper; acquire here (no compiler implements consume). */
    struct array *a = __atomic_load_n(&array, __ATOMIC_ACQUIRE);
    x = __atomic_load_n(&a->buffer[t % size_of(a)], __ATOMIC_RELAXED);
    if (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return ABORT;
  }
  return x;
}

static long taken, stolen;

static void *owner(void *arg) {
  push(1);
  push(2); /* the array holds one element: this push resizes */
  taken = take();
  return arg;
}

static void *thief(void *arg) {
  stolen = steal();
  return arg;
}

int main(void) {
  array = new_array(1);
  pthread_t o, t;
  pthread_create(&o, NULL, owner, NULL);
  pthread_create(&t, NULL, thief, NULL);
  pthread_join(o, NULL);
  pthread_join(t, NULL);
  /* Each of 1 and 2 is taken or stolen at most once, and nothing else is. */
  assert(taken == 1 || taken == 2 || taken == EMPTY);
  assert(stolen == 1 || stolen == 2 || stolen == EMPTY || stolen == ABORT);
  assert(taken != stolen || taken == EMPTY);
  return 0;
}
