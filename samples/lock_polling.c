/* Thieves polling a queue under a lock, the way work-stealing benchmarks
 * wait for work: lock, look, unlock, re-read the done flag, again.
 *
 * Two things went wrong here. The agent's pthread entry points returned to
 * the program with whatever their last code left in the scratch registers,
 * and that depended on whether the step came from the plan's prefix or the
 * tail policy: spin detection fingerprints registers, so a thread DPOR had
 * seen enabled was taken for a spinner when the plan ran again ("internal
 * error: diverged from its own plan"). And a thread re-reading inside its
 * critical section was taken for a spinner while the others waited for its
 * mutex, which it was about to release: a false hang.
 *
 * Correct: every schedule ends, DPOR's exploration is exhaustive. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int done;
static int head, tail;

static void *thief(void *arg) {
  while (!atomic_load(&done) || head != tail) {
    pthread_mutex_lock(&lock);
    if (head != tail) head++;
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, thief, NULL);
  pthread_mutex_lock(&lock);
  tail++;
  pthread_mutex_unlock(&lock);
  atomic_store(&done, 1);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  assert(head == tail);
  return 0;
}
