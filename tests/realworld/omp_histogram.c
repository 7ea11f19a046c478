// An OpenMP program for the realworld suite: two threads (a parallel for
// with a reduction, a critical section and an atomic update) count the
// words of a text file by length and checksum them. The result does not
// depend on the schedule, so every execution must print the same lines.
// Usage: omp_histogram FILE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_LEN 32

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: omp_histogram FILE\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  static unsigned char text[1 << 22];
  size_t n = fread(text, 1, sizeof text, f);
  fclose(f);

  // Word starts: a word is a maximal run of bytes other than space/newline.
  long histogram[MAX_LEN + 1] = {0};
  uint64_t checksum = 0;
  long words = 0;
  long longest = 0;
  int team = 0;
  omp_set_num_threads(2);
#pragma omp parallel
  {
    long local[MAX_LEN + 1] = {0};
#pragma omp single
    team = omp_get_num_threads();
#pragma omp for reduction(+ : checksum) schedule(dynamic, 4096)
    for (long i = 0; i < (long)n; ++i) {
      int sep = text[i] == ' ' || text[i] == '\n';
      int start = !sep && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n');
      if (!start) continue;
      long len = 0;
      uint64_t h = 1469598103934665603ull;
      while (i + len < (long)n && text[i + len] != ' ' && text[i + len] != '\n') {
        h = (h ^ text[i + len]) * 1099511628211ull;
        ++len;
      }
      local[len > MAX_LEN ? MAX_LEN : len]++;
      checksum += h;
#pragma omp atomic
      words++;
    }
#pragma omp critical
    {
      for (int l = 0; l <= MAX_LEN; ++l) {
        histogram[l] += local[l];
        if (local[l] && l > longest) longest = l;
      }
    }
  }
  printf("threads in the team: %d\n", team);
  printf("words: %ld, longest: %ld, checksum: %016llx\n", words, longest, (unsigned long long)checksum);
  for (int l = 1; l <= MAX_LEN; ++l)
    if (histogram[l]) printf("length %2d: %ld\n", l, histogram[l]);
  return 0;
}
