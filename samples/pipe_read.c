/* One thread reads a pipe that another thread of the program writes. The
 * reader blocks in read(2) until the writer has written. Both threads first
 * count themselves in `arrived` (so that the reader may be first to read).
 * Correct: prints "read 5: hello".
 *
 * With the argument "split" the writer writes "he" and "llo" separately and
 * the reader assumes one read gets all five bytes: an assertion fails when
 * the reader runs between the two writes. Buggy. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fds[2];
static atomic_int arrived;
static int split;

static void *reader(void *arg) {
  (void)arg;
  char buf[16] = {0};
  atomic_fetch_add(&arrived, 1);
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  if (split) assert(n == 5);
  printf("read %zd: %s\n", n, buf);
  return NULL;
}

int main(int argc, char **argv) {
  split = argc > 1 && strcmp(argv[1], "split") == 0;
  if (pipe(fds) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  atomic_fetch_add(&arrived, 1);
  if (split) {
    if (write(fds[1], "he", 2) != 2 || write(fds[1], "llo", 3) != 3) return 2;
  } else if (write(fds[1], "hello", 5) != 5) {
    return 2;
  }
  pthread_join(t, NULL);
  return 0;
}
