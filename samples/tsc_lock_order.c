/* Buggy: each worker reads the CPU's time-stamp counter (rdtsc) and lets it
 * choose how many times it touches a shared counter and in which order it
 * takes two locks. Under ctrl the counter is virtual and advances at every
 * read, so the second reader always gets the other order: a deadlock when
 * both hold their first lock. A replay reads the recording's values and
 * takes the same steps; with the real counter it took others (the number of
 * touches, the order) and diverged.
 * With the argument "untrapped" the program first makes rdtsc readable in
 * itself (prctl PR_SET_TSC, PR_TSC_ENABLE: the kernel's trap off, as on a
 * machine whose trap does not work): only ctrl's rdtsc sites keep the
 * counter virtual. Built as tsc_lock_order_lib, the workers read it in a
 * library (tsc_read_lib.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <x86intrin.h>

#ifdef TSC_FROM_LIBRARY
unsigned long long tsc_read(void);
#else
static unsigned long long tsc_read(void) { return __rdtsc(); }
#endif

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static atomic_int touches;
static int done;

static void* worker(void* arg) {
  (void)arg;
  unsigned long long t = tsc_read() / 1000; /* microseconds of a 1 GHz counter */
  for (unsigned long long i = 0; i < (t / 2) % 8; ++i) atomic_fetch_add(&touches, 1);
  pthread_mutex_t* first = t % 2 ? &a : &b;
  pthread_mutex_t* second = t % 2 ? &b : &a;
  pthread_mutex_lock(first);
  pthread_mutex_lock(second);
  ++done;
  pthread_mutex_unlock(second);
  pthread_mutex_unlock(first);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "untrapped") == 0 && prctl(PR_SET_TSC, PR_TSC_ENABLE) != 0) {
    perror("prctl");
    return 2;
  }
  unsigned int aux;
  /* rdtscp too, in main before the threads: the start-up is replayed alike. */
  unsigned long long start = __rdtscp(&aux);
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("%d done, %d touches, %s\n", done, atomic_load(&touches),
         __rdtsc() > start ? "counter advanced" : "counter stuck");
  return 0;
}
