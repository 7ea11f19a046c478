/* Sigma(N) (SV-COMP pthread/sigma, TRACER OOPSLA 2018 Tables 3 and 5, with
 * the final assertion removed as there): main publishes an index before
 * creating each of N threads; each thread reads the index (any value main
 * wrote since it was created) and marks that array slot. Under --model ra
 * it has N! weak traces (120 at N = 5). N is the first argument (default 5). */
#include <pthread.h>
#include <stdlib.h>

#define MAX 16

static int array[MAX];
static int array_index = -1;

static void *thread(void *arg) {
  int i = __atomic_load_n(&array_index, __ATOMIC_ACQUIRE);
  __atomic_store_n(&array[i], 1, __ATOMIC_RELEASE);
  return arg;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5;
  if (n < 1 || n > MAX) return 2;
  pthread_t t[MAX];
  for (int tid = 0; tid < n; tid++) {
    __atomic_store_n(&array_index, tid, __ATOMIC_RELEASE);
    pthread_create(&t[tid], 0, thread, 0);
  }
  for (int tid = 0; tid < n; tid++) pthread_join(t[tid], 0);
  return 0;
}
