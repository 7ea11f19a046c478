/* Correct: a thread reads a file the program opened before its threads.
 *
 * Every execution is forked from the checkpoint (the first pthread_create)
 * and shares its open file descriptions: unless ctrl puts the offset back,
 * the second execution reads at end of file and counts 0 lines. Run with
 * the name of a file to create (10 lines); prints the count. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static FILE *in;
static int total, others;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *reader(void *arg) {
  (void)arg;
  char line[64];
  int n = 0;
  while (fgets(line, sizeof line, in)) n++;
  pthread_mutex_lock(&m);
  total += n;
  pthread_mutex_unlock(&m);
  return NULL;
}

static void *bystander(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  others++;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "file_read_thread.txt";
  FILE *out = fopen(path, "w");
  if (!out) return 2;
  for (int i = 1; i <= 10; i++) fprintf(out, "line %d\n", i);
  fclose(out);
  in = fopen(path, "r");
  if (!in) return 2;
  pthread_t a, b;
  pthread_create(&a, NULL, reader, NULL);
  pthread_create(&b, NULL, bystander, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("total=%d\n", total);
  assert(total == 10);
  return 0;
}
