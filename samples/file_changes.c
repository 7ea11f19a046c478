/* Correct: threads write, create, truncate, rename and remove files.
 *
 * Before its threads the program sets up the directory (a log open for
 * writing, an input, a file to rewrite, a file to remove). Each execution
 * first checks that it finds exactly that state: ctrl must undo what the
 * previous execution did. After the run the directory must be what one
 * native run leaves (tests/e2e/check_files.cmake checks it):
 *   log.txt    "header" and one line per worker
 *   made.txt   created by T1
 *   moved.txt  input.txt renamed by T1 (input.txt gone)
 *   data.txt   rewritten by T2
 *   gone.txt   removed by T2
 *   held.txt   removed by T1, after it checked that the name still names
 *              the file main opened before the threads (as xz does)
 *   stderr.txt "execution stderr" once: the program sends its stderr there
 *              before its threads, and writes to it in each execution
 * Its stdout, when the test redirects it to a file, must hold "stdout
 * header" and "execution output" once each. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *logf;
static int held;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert(f);
  fputs(text, f);
  fclose(f);
}

static int holds(const char *path, const char *text) {
  char buf[128] = {0};
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  return n == strlen(text) && memcmp(buf, text, n) == 0;
}

static void *t1(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  fprintf(logf, "from T1\n");
  fflush(logf);
  pthread_mutex_unlock(&m);
  put("made.txt", "made by T1\n");
  assert(rename("input.txt", "moved.txt") == 0);
  struct stat by_fd, by_name;
  assert(fstat(held, &by_fd) == 0 && stat("held.txt", &by_name) == 0);
  assert(by_fd.st_ino == by_name.st_ino && by_fd.st_dev == by_name.st_dev);
  assert(unlink("held.txt") == 0);
  return NULL;
}

static void *t2(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  fprintf(logf, "from T2\n");
  fflush(logf);
  pthread_mutex_unlock(&m);
  int fd = open("data.txt", O_WRONLY | O_TRUNC);
  assert(fd >= 0);
  assert(write(fd, "new\n", 4) == 4);
  close(fd);
  assert(unlink("gone.txt") == 0);
  return NULL;
}

static void *nothing(void *arg) { return arg; }

int main(void) {
  unlink("made.txt");
  unlink("moved.txt");
  put("input.txt", "input\n");
  put("data.txt", "old data, longer than the new\n");
  put("gone.txt", "to be removed\n");
  put("held.txt", "held open\n");
  held = open("held.txt", O_RDONLY);
  assert(held >= 0);
  logf = fopen("log.txt", "w");
  assert(logf);
  fprintf(logf, "header\n");
  fflush(logf);
  printf("stdout header\n");
  assert(freopen("stderr.txt", "w", stderr));
  // The checkpoint: everything after runs once per execution.
  pthread_t first;
  pthread_create(&first, NULL, nothing, NULL);
  struct stat st;
  assert(stat("made.txt", &st) != 0 && stat("moved.txt", &st) != 0);
  assert(holds("input.txt", "input\n"));
  assert(holds("data.txt", "old data, longer than the new\n"));
  assert(holds("gone.txt", "to be removed\n"));
  assert(holds("log.txt", "header\n"));
  printf("execution output\n");
  fprintf(stderr, "execution stderr\n");
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(first, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  fclose(logf);
  return 0;
}
