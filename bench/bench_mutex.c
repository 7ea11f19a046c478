/* THREADS workers each perform ITERATIONS pthread_mutex_lock/unlock pairs
 * on one shared mutex, with an empty critical section: 2 visible operations
 * per iteration for ctrl (the loop touches no other shared memory, which
 * ctrl's default --visible all would make visible too). The main thread creates the workers (the first
 * pthread_create is ctrl's checkpoint) and joins them.
 *
 * Prints one line:
 *   bench: threads=T ops=N span_ns=S
 * ops: lock + unlock calls of all workers; span_ns: from the first worker's
 * first operation to the last worker's last one. */
#include <pthread.h>

#include "bench_common.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

struct worker {
  pthread_t handle;
  unsigned long iterations;
  pthread_mutex_t *mutex;
  uint64_t start_ns, end_ns;
};

static void *work(void *arg) {
  struct worker *w = arg;
  unsigned long n = w->iterations;
  pthread_mutex_t *m = w->mutex;
  uint64_t start = bench_now_ns();
  for (unsigned long i = 0; i < n; i++) {
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
  }
  uint64_t end = bench_now_ns();
  w->start_ns = start;
  w->end_ns = end;
  return NULL;
}

int main(int argc, char **argv) {
  int threads;
  unsigned long iterations;
  bench_args(argc, argv, &threads, &iterations);
  struct worker w[BENCH_MAX_THREADS] = {0};
  for (int i = 0; i < threads; i++) {
    w[i].iterations = iterations;
    w[i].mutex = &mutex;
  }
  for (int i = 0; i < threads; i++)
    if (pthread_create(&w[i].handle, NULL, work, &w[i]) != 0) return 1;
  for (int i = 0; i < threads; i++) pthread_join(w[i].handle, NULL);

  uint64_t first = UINT64_MAX, last = 0;
  for (int i = 0; i < threads; i++) {
    if (w[i].start_ns < first) first = w[i].start_ns;
    if (w[i].end_ns > last) last = w[i].end_ns;
  }
  unsigned long ops = 2ul * (unsigned long)threads * iterations;
  printf("bench: threads=%d ops=%lu span_ns=%llu\n", threads, ops, (unsigned long long)(ops ? last - first : 0));
  return 0;
}
