// Two threads that do much work on their own stacks (a recursive function
// and a local array filled and summed through pointers: instruction sites)
// between a few shared operations (a mutex-protected total and count).
//
// Under --visible all every one of those own-stack accesses is a step;
// under --visible shared (the default) none is (agent/OwnMemory.h), and the
// executions DPOR runs are the same: they conflict with nothing.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int done;

__attribute__((noinline)) static void fill(volatile int* a, int n, int seed) {
  for (int i = 0; i < n; ++i) a[i] = seed * i + 1;
}

__attribute__((noinline)) static long sum(volatile const int* a, int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}

// Each level keeps its partial result in its own frame, through a pointer.
__attribute__((noinline)) static long depth(volatile long* acc, int level) {
  volatile long mine = *acc + level;
  if (level == 0) return mine;
  return depth(&mine, level - 1);
}

static void* worker(void* arg) {
  int seed = (int)(long)arg;
  volatile int local[256];
  long r = 0;
  for (int round = 0; round < 3; ++round) {
    fill(local, 256, seed + round);
    r += sum(local, 256);
    volatile long start = r;
    r += depth(&start, 100);
    pthread_mutex_lock(&lock);
    total += r % 1000;
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  ++done;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("total = %ld\n", total);
  assert(done == 2);
  return 0;
}
