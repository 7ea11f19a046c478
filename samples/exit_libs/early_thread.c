/* Links early_thread_lib.c, whose constructor starts a thread before ctrl's
 * agent is initialised and whose destructor joins it at exit. Prints
 * "early 1" and exits 0. */
#include <stdio.h>

int early_running(void);

int main(void) {
  printf("early %d\n", early_running());
  return 0;
}
