/* A finished thread's exit path is part of its last step.
 *
 * After a thread's start routine returns, libc runs its exit path natively:
 * pthread key destructors, C++ thread_local destructors, returning its malloc
 * cache to an arena. ctrl counts all of it in the thread's exit step: the
 * thread scheduled next waits until the kernel has cleared the exiting
 * thread's tid, so what that path does (heap layout, here a flag set by a
 * slow key destructor) is the same whenever the schedule is, and replays
 * do not diverge.
 *
 * The "bug" is the evidence: main, once the worker's exit step is behind it,
 * finds the destructor's flag set. ctrl must find this assertion (random
 * schedules put main's check after the exit step); without the wait, main
 * would always read 0, since the destructor sleeps first. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static pthread_key_t key;
static atomic_int done;
static volatile int exit_path_finished;

static void destructor(void *value) {
  (void)value;
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  exit_path_finished = 1;
}

static void *worker(void *arg) {
  (void)arg;
  pthread_setspecific(key, &key);
  atomic_store(&done, 1);
  return NULL;
}

int main(void) {
  pthread_key_create(&key, destructor);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!atomic_load(&done)) {
  }
  atomic_load(&done);
  assert(!exit_path_finished && "the worker's exit path had completed when main resumed");
  pthread_join(t, NULL);
  return 0;
}
