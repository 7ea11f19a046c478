/* Buggy: two workers add to a counter without a lock (a lost update, and a
 * data race). Then main, alone, takes as many steps as its kernel thread id
 * says (modulo 8), as Rust's panic hook does when it prints that id: a
 * replay takes another number of them than the execution it replays. No
 * thread is left to schedule by then, so that is no divergence. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static int counter;
static volatile int rounds;

static void* worker(void* arg) {
  (void)arg;
  counter++;
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  long n = syscall(SYS_gettid) % 8;
  for (long i = 0; i < n; ++i) rounds = rounds + 1;
  assert(counter == 2);
  return 0;
}
