/* A statically linked program: ctrl cannot preload its agent into it and
 * must refuse it as bad input (exit status 2). */
#include <stdio.h>

int main(void) {
  puts("hello from a static binary");
  return 0;
}
