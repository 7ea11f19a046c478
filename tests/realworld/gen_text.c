// Writes SIZE bytes of deterministic, varied text to FILE: lines of 1 to
// WORDS (default 15) words of 1 to 14 letters (some capitalised, some with
// digits or punctuation) drawn from a fixed linear congruential generator,
// so that compressors, sort and the suite's own programs get the same input
// on every machine.
// Usage: gen_text SIZE FILE [WORDS]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 0x2545F4914F6CDD1Dull;

static uint32_t next(uint32_t bound) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33) % bound;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: gen_text SIZE FILE [WORDS]\n");
    return 2;
  }
  long size = atol(argv[1]);
  int words = argc == 4 ? atoi(argv[3]) : 15;
  FILE* f = fopen(argv[2], "wb");
  if (!f || size <= 0 || words <= 0) {
    fprintf(stderr, "gen_text: cannot write %s\n", argv[2]);
    return 2;
  }
  // A small vocabulary repeated often (compressible) mixed with random words.
  static const char* common[] = {"the",   "of", "thread", "mutex",    "lock", "and",    "wait", "signal",
                                 "queue", "to", "a",      "schedule", "in",   "atomic", "is",   "data"};
  long written = 0;
  int in_line = 0;
  while (written < size) {
    char word[32];
    int len = 0;
    if (next(3) != 0) {
      const char* w = common[next(16)];
      while (w[len]) word[len] = w[len], ++len;
    } else {
      len = 1 + (int)next(14);
      for (int i = 0; i < len; ++i) word[i] = (char)('a' + next(26));
      if (next(5) == 0) word[0] = (char)(word[0] - 'a' + 'A');
      if (next(7) == 0) word[len++] = (char)('0' + next(10));
      if (next(6) == 0) word[len++] = ",.;:!?"[next(6)];
    }
    int end_line = ++in_line >= 1 + (int)next((uint32_t)words);
    word[len++] = end_line ? '\n' : ' ';
    if (end_line) in_line = 0;
    if (written + len > size) {
      len = (int)(size - written);
      if (len > 0) word[len - 1] = '\n';
    }
    fwrite(word, 1, (size_t)len, f);
    written += len;
  }
  return fclose(f) == 0 ? 0 : 2;
}
