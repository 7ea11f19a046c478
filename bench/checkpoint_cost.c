// Target of bench/checkpoint_cost.cpp: THREADS workers (default 8) that each
// touch MB megabytes of heap (default 4) and then take a shared mutex ROUNDS
// times, so that a paused execution has every worker alive, parked, with
// memory of its own.
//
//   bench_checkpoint_cost [THREADS [MB [ROUNDS [fork]]]]
//
// With `fork` (run natively, not under ctrl), main times fork() of the
// process, the child exiting at once and reaped, while the workers hold their
// memory: the plain fork a live checkpoint is compared with.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static size_t bytes = 4u << 20;
static int rounds = 1000;
static int time_fork;
static pthread_barrier_t ready, done;

static void sort(double* v, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && v[j] < v[j - 1]; --j) {
      double x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
}

static void* worker(void* arg) {
  char* mem = malloc(bytes);
  memset(mem, (int)(long)arg, bytes);
  if (time_fork) {
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&done);
  }
  for (int r = 0; r < rounds; ++r) {
    pthread_mutex_lock(&lock);
    counter += mem[r % bytes];
    pthread_mutex_unlock(&lock);
  }
  free(mem);
  return NULL;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  if (argc > 2) bytes = (size_t)atol(argv[2]) << 20;
  if (bytes < 4096) bytes = 4096;
  if (argc > 3) rounds = atoi(argv[3]);
  pthread_t t[64];
  if (n < 1 || n > 64) n = 8;
  time_fork = argc > 4 && strcmp(argv[4], "fork") == 0;
  pthread_barrier_init(&ready, NULL, n + 1);
  pthread_barrier_init(&done, NULL, n + 1);
  for (long i = 0; i < n; ++i) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  if (time_fork) {
    enum { kReps = 50 };
    double us[kReps], forked[kReps];
    pthread_barrier_wait(&ready);
    for (int i = 0; i < kReps; ++i) {
      struct timespec a, f, b;
      clock_gettime(CLOCK_MONOTONIC, &a);
      pid_t child = fork();
      if (child == 0) _exit(0);
      clock_gettime(CLOCK_MONOTONIC, &f);
      waitpid(child, NULL, 0);
      clock_gettime(CLOCK_MONOTONIC, &b);
      forked[i] = (f.tv_sec - a.tv_sec) * 1e6 + (f.tv_nsec - a.tv_nsec) / 1e3;
      us[i] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
    }
    sort(forked, kReps);
    sort(us, kReps);
    printf("fork             median %9.1f us   min %9.1f us   (%d runs, %d threads, %zu MB each)\n", forked[kReps / 2],
           forked[0], kReps, n, bytes >> 20);
    printf("fork+exit+wait   median %9.1f us   min %9.1f us\n", us[kReps / 2], us[0]);
    pthread_barrier_wait(&done);
  }
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
  return 0;
}
