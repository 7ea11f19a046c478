/* main returns without joining the thread it created: the process exit
 * ends the worker wherever it is, possibly before its first step.
 *
 * Without arguments (buggy): the worker's check fails whenever it gets to
 * run before main's return; ctrl must try the worker before the exit.
 *
 * With "count" (correct): the worker only stores. ctrl sees main's create
 * and exit and the worker's start, store and thread exit. The process exit
 * conflicts with every operation and nothing else conflicts, so a class is
 * fixed by how many of the worker's three steps come before the exit:
 * 4 classes (the exit before the worker's start, after its start, after its
 * store, after its thread exit). */
#include <assert.h>
#include <pthread.h>
#include <string.h>

static volatile int x;

static void *checker(void *arg) {
  (void)arg;
  x = 1;
  assert(x == 0 && "the worker ran before main returned");
  return NULL;
}

static void *storer(void *arg) {
  (void)arg;
  x = 1;
  return NULL;
}

int main(int argc, char **argv) {
  int count = argc > 1 && strcmp(argv[1], "count") == 0;
  pthread_t t;
  pthread_create(&t, NULL, count ? storer : checker, NULL);
  return 0; /* no join: the exit ends the worker */
}
