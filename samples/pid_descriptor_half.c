/* Correct: two threads add to a counter. It prints its pid and the top 32
 * bits of its main thread's descriptor address (glibc's struct pthread, the
 * thread pointer), for tests/e2e/pid_descriptor_half.sh: when the two are
 * equal, the pid also appears in the descriptor as the high half of its
 * pointers to itself, and the agent must still find the real tid word
 * (agent/TidWord.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static int counter;

static void* worker(void* arg) {
  (void)arg;
  __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  printf("pid=%d descriptor_high=%lu\n", (int)getpid(), (unsigned long)((uintptr_t)pthread_self() >> 32));
  fflush(stdout);
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return __atomic_load_n(&counter, __ATOMIC_RELAXED) == 2 ? 0 : 1;
}
