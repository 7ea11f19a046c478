/* Buggy: two workers add to a counter without a lock (a lost update, and a
 * data race). Before that, each reads a constant table at an index taken
 * from its kernel thread id, which differs from run to run: Rust's panic
 * hook does the same when it prints the thread id. A load of read-only
 * memory races with nothing and is no step, so the trace of the bug
 * replays whatever the ids (when such loads were steps, their addresses
 * differed in the replay: "replay diverged"). */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int table[64] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2,
                              6, 4, 3, 3, 8, 3, 2, 7, 9, 5, 0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3,
                              9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2};
static int counter;
static volatile int digits;

static void* worker(void* arg) {
  (void)arg;
  long tid = syscall(SYS_gettid);
  digits += table[tid % 64] + table[(tid / 64) % 64];
  counter++;
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  assert(counter == 2);
  return 0;
}
