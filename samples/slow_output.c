/* Correct: writes an output file slowly. Before its thread main creates
 * out.txt with a header line (so the file is open for writing at the
 * checkpoint); a worker then computes and appends "line N" 100 times, one
 * write each, with work in between: an execution takes about ARGV[1]
 * milliseconds of CPU time (default 800). A --time-limit that stops an
 * execution half-way must not leave the file half-written: ctrl puts it back
 * as at the checkpoint ("header" alone) or leaves it as the last complete
 * execution wrote it (the header and the 100 lines), and says which
 * (tests/e2e/check_time_limit_files.cmake). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int out;
static long spins_per_line;

static void *worker(void *arg) {
  for (int i = 1; i <= 100; i++) {
    unsigned long x = (unsigned long)i;
    for (long k = 0; k < spins_per_line; k++) {
      x = x * 6364136223846793005UL + 1442695040888963407UL;
      __asm__ volatile("" : "+r"(x));
    }
    char line[32];
    int n = snprintf(line, sizeof line, "line %d\n", i);
    if (write(out, line, (size_t)n) != n) abort();
  }
  return arg;
}

/* Spins that take about `ms` milliseconds of CPU time here. */
static long calibrate(long ms) {
  struct timespec a, b;
  long spins = 1 << 20;
  unsigned long x = 1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  for (long k = 0; k < spins; k++) {
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    __asm__ volatile("" : "+r"(x));
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  if (took <= 0) took = 1e-6;
  return (long)((double)spins * ((double)ms / 1000.0) / took);
}

int main(int argc, char **argv) {
  long ms = argc > 1 ? atol(argv[1]) : 800;
  spins_per_line = calibrate(ms) / 100;
  out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || write(out, "header\n", 7) != 7) return 3;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  close(out);
  return 0;
}
