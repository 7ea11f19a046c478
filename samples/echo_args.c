/* Correct: prints its arguments, each in brackets, on one line ("args:
 * [in.txt] [-o] [out]"), so that a test can see they reached it unchanged
 * and in order. */
#include <stdio.h>

int main(int argc, char **argv) {
  printf("args:");
  for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
  printf("\n");
  return 0;
}
