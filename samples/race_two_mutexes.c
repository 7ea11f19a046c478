/* A data race despite locks: `stats.total` is written under `add_lock` and
 * read under `report_lock`, two different mutexes, so nothing orders the
 * write before the read. Every interleaving prints a plausible value and no
 * assertion can fail; the race is the bug (ctrl: data-race on stats.total,
 * found under the default options). Fix: one mutex for the field. */
#include <pthread.h>
#include <stdio.h>

struct stats {
  long count;
  long total;
};

static struct stats stats;
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static long seen;

static void *adder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&add_lock);
  stats.total += 5;
  pthread_mutex_unlock(&add_lock);
  return NULL;
}

static void *reporter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&report_lock);
  seen = stats.total;
  pthread_mutex_unlock(&report_lock);
  return NULL;
}

int main(void) {
  pthread_t a, r;
  pthread_create(&a, NULL, adder, NULL);
  pthread_create(&r, NULL, reporter, NULL);
  pthread_join(a, NULL);
  pthread_join(r, NULL);
  printf("total %ld, seen %ld\n", stats.total, seen);
  return 0;
}
