/* OpenMP with two threads: a parallel for with a sum reduction, then a
 * barrier inside a parallel region. libgomp waits with its own inline futex
 * system calls and spin-waits. Correct: prints "sum 5050 after barrier 2". */
#include <omp.h>
#include <stdio.h>

int main(void) {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
  for (int i = 1; i <= 100; ++i) sum += i;
  int after = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp barrier
#pragma omp atomic
    after++;
  }
  printf("sum %ld after barrier %d\n", sum, after);
  return 0;
}
