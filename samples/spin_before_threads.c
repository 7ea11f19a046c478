/* Buggy: a single-threaded program that spins forever in main, before it
 * ever creates a thread (so before ctrl's checkpoint: it runs natively,
 * without visible operations). ctrl reports a hang once the spin has used
 * --hang-timeout seconds of CPU time, with main's backtrace. */
#include <stdatomic.h>

static atomic_int x;

int main(void) {
  while (atomic_load_explicit(&x, memory_order_relaxed) != 42) {
  }
  return 0;
}
