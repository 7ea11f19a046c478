/* Shared by the bench target programs: a monotonic clock (clock_gettime is a
 * vDSO call, which ctrl does not interpose, so reading it is not a visible
 * operation) and argument parsing. */
#ifndef CTRL_BENCH_COMMON_H
#define CTRL_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BENCH_MAX_THREADS = 16 };

static inline uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* usage: PROGRAM THREADS ITERATIONS */
static inline void bench_args(int argc, char **argv, int *threads, unsigned long *iterations) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s THREADS ITERATIONS\n", argv[0]);
    exit(2);
  }
  *threads = atoi(argv[1]);
  *iterations = strtoul(argv[2], NULL, 10);
  if (*threads < 1 || *threads > BENCH_MAX_THREADS) {
    fprintf(stderr, "%s: THREADS must be 1..%d\n", argv[0], BENCH_MAX_THREADS);
    exit(2);
  }
}

#endif
