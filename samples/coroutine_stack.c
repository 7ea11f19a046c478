/* A loop that runs on a coroutine's stack (makecontext), a small mapping
 * right under an inaccessible page, while another thread stores. ctrl looks
 * at the top of a thread's stack when it judges whether a read repeats
 * (spin detection); it must not read past the end of a stack it does not
 * know, which here would fault inside ctrl's agent. Correct: exhaustive, no
 * bug. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

#define PAGE 4096

static atomic_int flag;
static int rounds; /* a global bound the loop re-reads */
static int sum;
static ucontext_t main_context, loop_context;

static void loop_on_small_stack(void) {
  for (int i = 0; i < rounds; ++i) sum += atomic_load_explicit(&flag, memory_order_relaxed);
}

static void *writer(void *arg) {
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  return arg;
}

int main(int argc, char **argv) {
  (void)argv;
  rounds = argc + 1;
  char *stack = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED || mprotect(stack + 2 * PAGE, PAGE, PROT_NONE) != 0) return 2;
  getcontext(&loop_context);
  loop_context.uc_stack.ss_sp = stack;
  loop_context.uc_stack.ss_size = 2 * PAGE; /* ends where the inaccessible page starts */
  loop_context.uc_link = &main_context;
  makecontext(&loop_context, loop_on_small_stack, 0);
  pthread_t w;
  pthread_create(&w, NULL, writer, NULL);
  swapcontext(&main_context, &loop_context);
  pthread_join(w, NULL);
  printf("%d\n", sum >= 0);
  return 0;
}
