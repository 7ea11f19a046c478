/* A program with its own SIGTRAP handler, plus (by default) a lost update.
 *
 * ctrl stops threads at the instructions it patches, with int3 (which raises
 * SIGTRAP) where it cannot use a jump; a program that handles SIGTRAP itself
 * must still get exactly its own traps, and no others. This one installs a
 * counting handler with sigaction and raises SIGTRAP once, from a worker
 * thread before its increment; main checks that the handler ran exactly once
 * before anything else. (Each thread reads its job through a pointer: two
 * short loads in a row, so ctrl must patch the first with int3, since a jump
 * would cover the second.)
 *
 * The increment is an inline atomic load and store (relaxed: plain movs),
 * not a read-modify-write: if both threads load before either stores, one
 * increment is lost and the assertion on x fails. With "ok" as the first
 * argument the threads use atomic_fetch_add (lock add) and the program is
 * correct. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int x;
static volatile sig_atomic_t traps;
static int use_fetch_add;

static void on_sigtrap(int sig) {
  (void)sig;
  traps = traps + 1;
  static const char msg[] = "own_sigtrap: the program's SIGTRAP handler ran\n";
  ssize_t n = write(STDOUT_FILENO, msg, sizeof msg - 1);
  (void)n;
}

struct job {
  atomic_int *counter;
  int raises;
};

static void *increment(void *arg) {
  const struct job *job = arg;
  atomic_int *c = job->counter;
  if (job->raises) raise(SIGTRAP);
  if (use_fetch_add) {
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
    return NULL;
  }
  int v = atomic_load_explicit(c, memory_order_relaxed);
  atomic_store_explicit(c, v + 1, memory_order_relaxed); /* should be fetch_add */
  return NULL;
}

int main(int argc, char **argv) {
  use_fetch_add = argc > 1 && strcmp(argv[1], "ok") == 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigtrap;
  sigemptyset(&sa.sa_mask);
  int r = sigaction(SIGTRAP, &sa, NULL);
  assert(r == 0);
  pthread_t t1, t2;
  static struct job jobs[2] = {{&x, 1}, {&x, 0}}; /* the first raises SIGTRAP */
  pthread_create(&t1, NULL, increment, &jobs[0]);
  pthread_create(&t2, NULL, increment, &jobs[1]);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int final = atomic_load_explicit(&x, memory_order_relaxed);
  printf("traps = %d, x = %d\n", (int)traps, final);
  assert(traps == 1);
  assert(final == 2);
  return 0;
}
