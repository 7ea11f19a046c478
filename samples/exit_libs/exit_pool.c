/* Uses exit_pool_lib.c's pool, whose destructor joins its worker at exit
 * (after ctrl's agent was finalised). Correct: prints "pool done" and exits
 * 0 in every interleaving; ctrl must report no crash and no hang. */
#include <stdio.h>

void pool_start(void);
void pool_job(void);

int main(void) {
  pool_start();
  pool_job();
  puts("pool done");
  return 0;
}
