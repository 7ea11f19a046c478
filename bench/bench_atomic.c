/* THREADS workers each perform ITERATIONS atomic_fetch_add on one shared
 * counter. Built with -fno-inline-atomics: every increment is a call to
 * libatomic's __atomic_fetch_add_8, i.e. one visible operation for ctrl.
 *
 * The main thread creates the workers (the first pthread_create is ctrl's
 * checkpoint) and joins them, so while they run it is blocked and only the
 * workers are enabled.
 *
 * Prints one line:
 *   bench: threads=T ops=N span_ns=S switches=W
 * ops: atomic operations performed by all workers; span_ns: from the first
 * worker's first operation to the last worker's last one (the workers'
 * steady state, without process start-up or ctrl's checkpoint); switches:
 * how many times consecutive increments of the counter were made by
 * different threads, computed from the values fetch_add returned (each
 * thread's values form runs of consecutive integers; one run per turn). */
#include <pthread.h>
#include <stdatomic.h>

#include "bench_common.h"

static atomic_ulong counter;

struct worker {
  pthread_t handle;
  unsigned long iterations;
  atomic_ulong *counter;
  uint64_t start_ns, end_ns;
  unsigned long runs;  /* maximal runs of consecutive counter values */
};

static void *work(void *arg) {
  struct worker *w = arg;
  /* The loop touches registers and the atomic only: with ctrl's default
   * --visible all, a plain access to shared memory (a global, the worker
   * struct on main's stack) would be one more visible operation. */
  unsigned long n = w->iterations, prev = 0, runs = 0;
  atomic_ulong *c = w->counter;
  uint64_t start = bench_now_ns();
  for (unsigned long i = 0; i < n; i++) {
    unsigned long v = atomic_fetch_add(c, 1);
    if (i == 0 || v != prev + 1) runs++;
    prev = v;
  }
  uint64_t end = bench_now_ns();
  w->start_ns = start;
  w->end_ns = end;
  w->runs = runs;
  return NULL;
}

int main(int argc, char **argv) {
  int threads;
  unsigned long iterations;
  bench_args(argc, argv, &threads, &iterations);
  struct worker w[BENCH_MAX_THREADS] = {0};
  for (int i = 0; i < threads; i++) {
    w[i].iterations = iterations;
    w[i].counter = &counter;
  }
  for (int i = 0; i < threads; i++)
    if (pthread_create(&w[i].handle, NULL, work, &w[i]) != 0) return 1;
  for (int i = 0; i < threads; i++) pthread_join(w[i].handle, NULL);

  uint64_t first = UINT64_MAX, last = 0;
  unsigned long runs = 0;
  for (int i = 0; i < threads; i++) {
    if (w[i].start_ns < first) first = w[i].start_ns;
    if (w[i].end_ns > last) last = w[i].end_ns;
    runs += w[i].runs;
  }
  unsigned long ops = (unsigned long)threads * iterations;
  if (atomic_load(&counter) != ops) {
    fprintf(stderr, "bench_atomic: counter %lu, expected %lu\n", (unsigned long)atomic_load(&counter), ops);
    return 1;
  }
  printf("bench: threads=%d ops=%lu span_ns=%llu switches=%lu\n", threads, ops,
         (unsigned long long)(ops ? last - first : 0), runs ? runs - 1 : 0);
  return 0;
}
