/* Buggy: closes every descriptor above 2 before its threads start (as
 * daemons and careful children do), then loses an update.
 *
 * The argument says how: closefrom, close_range, syscall (raw close_range
 * through syscall()) or loop (close() on 3..1023). ctrl's own channel to
 * the agent must survive each, so that the lost update is found. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int x;

static void *increment(void *arg) {
  (void)arg;
  int v = __atomic_load_n(&x, __ATOMIC_SEQ_CST);
  __atomic_store_n(&x, v + 1, __ATOMIC_SEQ_CST); /* should be a fetch-add */
  return NULL;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "closefrom";
  if (strcmp(how, "closefrom") == 0)
    closefrom(3);
  else if (strcmp(how, "close_range") == 0)
    assert(close_range(3, ~0U, 0) == 0);
  else if (strcmp(how, "syscall") == 0)
    assert(syscall(SYS_close_range, 3, ~0U, 0) == 0);
  else
    for (int fd = 3; fd < 1024; fd++) close(fd);
  pthread_t a, b;
  pthread_create(&a, NULL, increment, NULL);
  pthread_create(&b, NULL, increment, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(x == 2);
  return 0;
}
