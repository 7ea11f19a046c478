// Two threads that hand a byte back and forth through pipes N times, as a
// session's controller and runner hand the turn to each other: the cost of
// a same-CPU hand-off on this machine, without ctrl. bench/cpu_ceiling.sh
// runs one pair per CPU, alone and at once, which tells how much of a
// second CPU -j 2 can get here (docs/PERFORMANCE.md, issue 28).
//
//   bench_handoff_pair N   (prints the milliseconds N round trips took)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_peer[2], to_main[2];
static long rounds;

static void* peer(void* arg) {
  (void)arg;
  char c;
  for (long i = 0; i < rounds; ++i)
    if (read(to_peer[0], &c, 1) != 1 || write(to_main[1], &c, 1) != 1) exit(1);
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 200000;
  if (rounds <= 0 || pipe(to_peer) != 0 || pipe(to_main) != 0) return 2;
  pthread_t t;
  if (pthread_create(&t, NULL, peer, NULL) != 0) return 1;
  struct timespec s, e;
  clock_gettime(CLOCK_MONOTONIC, &s);
  char c = 'x';
  for (long i = 0; i < rounds; ++i)
    if (write(to_peer[1], &c, 1) != 1 || read(to_main[0], &c, 1) != 1) return 1;
  clock_gettime(CLOCK_MONOTONIC, &e);
  pthread_join(t, NULL);
  printf("%.0f\n", (e.tv_sec - s.tv_sec) * 1e3 + (e.tv_nsec - s.tv_nsec) / 1e6);
  return 0;
}
