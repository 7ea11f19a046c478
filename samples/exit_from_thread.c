/* A thread other than main ends the process while another thread has not
 * run yet: exit() by default, _exit() with "_exit", _Exit() with "_Exit".
 *
 * main starts the quitter and the checker, then joins them; the quitter
 * ends the process at once. Buggy: the checker's assertion fails whenever it
 * runs before the quitter's exit, which ctrl must try (in the schedule where
 * the quitter runs first, the checker never gets a turn).
 *
 * With "count" the checker only stores, and the classes can be counted.
 * Steps: main creates the quitter (c1) and the checker (c2), joins the
 * checker (j2, enabled once it exited), joins the quitter (never enabled:
 * the quitter does not return); the quitter starts (s1) and exits the
 * process (E); the checker starts, stores, exits (3 steps). E conflicts with
 * every step and no other pair conflicts, so a class is the set of steps
 * that run before E (closed under program order and creation): main has run
 * c1 alone (then the checker does not exist), or c1 c2 with 0 to 3 checker
 * steps, or c1 c2 j2 after all 3 checker steps: 1 + 4 + 1 = 6 classes. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int x;

static void *quit_exit(void *arg) { exit(arg != NULL); }
static void *quit__exit(void *arg) { _exit(arg != NULL); }
static void *quit__Exit(void *arg) { _Exit(arg != NULL); }

static void *checker(void *arg) {
  (void)arg;
  x = 1;
  assert(x == 0 && "the checker ran before the quitter's exit");
  return NULL;
}

static void *storer(void *arg) {
  (void)arg;
  x = 1;
  return NULL;
}

int main(int argc, char **argv) {
  void *(*quitter)(void *) = quit_exit;
  void *(*worker)(void *) = checker;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "count") == 0) worker = storer;
    if (strcmp(argv[i], "_exit") == 0) quitter = quit__exit;
    if (strcmp(argv[i], "_Exit") == 0) quitter = quit__Exit;
  }
  pthread_t q, c;
  pthread_create(&q, NULL, quitter, NULL);
  pthread_create(&c, NULL, worker, NULL);
  pthread_join(c, NULL);
  pthread_join(q, NULL); /* never returns: the quitter exits the process */
  return 0;
}
