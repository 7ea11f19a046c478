/* A pool that creates its workers again for every round: 40 rounds of two
 * workers, 80 threads over time but at most three alive at once. libc hands
 * a joined thread's pthread_t and stack to the next thread it creates, so
 * the pthread_t values of one round are those of the round before.
 *
 * ctrl names threads by index, and the limit counts threads that are not
 * joined: a round's workers take the indices of the previous round's (T1
 * and T2 again), and a join must find the thread the pthread_t names now,
 * not a finished one that had the same value (taken for it before, the
 * join waited in libc for a worker that was never scheduled: a false hang).
 *
 * Each worker fills its own slot; in the last round both also add to a
 * shared total, under the mutex (correct) or, with the argument "racy",
 * with a plain read-modify-write (a lost update, which the final assertion
 * sees). Only the last round's two workers conflict: DPOR runs exactly 2
 * executions, and in the racy mode finds the lost update. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 40

static int slot[ROUNDS][2];
static int total;
static volatile int racy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct job {
  int round, index;
};

static void *worker(void *arg) {
  const struct job *j = arg;
  slot[j->round][j->index] = j->round * 2 + j->index;
  if (j->round == ROUNDS - 1) {
    if (racy) {
      int seen = *(volatile int *)&total;
      *(volatile int *)&total = seen + 1;
    } else {
      pthread_mutex_lock(&lock);
      total++;
      pthread_mutex_unlock(&lock);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  racy = argc > 1 && strcmp(argv[1], "racy") == 0;
  struct job jobs[2];
  for (int r = 0; r < ROUNDS; ++r) {
    pthread_t t[2];
    for (int i = 0; i < 2; ++i) {
      jobs[i] = (struct job){r, i};
      pthread_create(&t[i], NULL, worker, &jobs[i]);
    }
    for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  }
  long sum = 0;
  for (int r = 0; r < ROUNDS; ++r) sum += slot[r][0] + slot[r][1];
  assert(sum == (long)(2 * ROUNDS) * (2 * ROUNDS - 1) / 2);
  assert(total == 2);
  printf("sum %ld, total %d\n", sum, total);
  return 0;
}
