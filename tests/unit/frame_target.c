// Locals and parameters of several kinds, for VariablePrinter_test's frame
// tests. work() prints "ready" and blocks reading its stdin (which the test
// never writes) in a function inlined in a nested block, so the test can
// attach, unwind to work's frame and print its locals. Built twice: -O0 (every local in
// memory at a frame-base offset) and -O2 (registers, location lists).
#include <stdio.h>
#include <unistd.h>

#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

struct pair {
  int first;
  long second;
};

int shadowed = 5;

// Out of the optimizer's sight: `number` must live in memory.
NOIPA void observe(int* p) { *p += 0; }

// Inlined even unoptimized: its locals come before its caller's.
static inline __attribute__((always_inline)) int read_scaled(int scale, char* out) {
  int factor = scale * 2;
  printf("ready\n");
  fflush(stdout);
  if (read(0, out, 1) < 0) return -1;
  return factor;
}

NOIPA int work(int param, const char* label) {
  int number = param * 3;
  int* pointer = &number;
  struct pair pair = {param, -2L * param};
  int array[4] = {1, 2, 3, param};
  static int calls;
  int shadowed = param + 100;
  int total = 0;
  calls++;
  observe(pointer);
  {
    int nested = number + 1;
    int number = param * 1000;  // hides the function's number in this block
    char byte;
    total += read_scaled(param, &byte) + nested + number;
  }
  return total + *pointer + pair.first + (int)pair.second + array[3] + shadowed + calls + label[0];
}

int main(int argc, char** argv) {
  (void)argv;
  return work(argc + 6, "seven") & 0x7f;
}
