// Threads whose state a live checkpoint must carry across (LiveCheckpoint.h):
// thread-local variables, an error-checking mutex each worker holds for its
// whole run, a shared error-checking mutex, a recursive mutex and an rwlock
// taken for writing, all used again after any step. Correct: every unlock
// must succeed (glibc compares the owner's tid for the error-checking and
// recursive ones and for rwlock writers).
//
//   checkpoint_threads [THREADS [ROUNDS [OUTPUT]]]
//
// Writes what each thread computed to OUTPUT (default: stdout) and exits
// with the shared total modulo 100.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

static pthread_mutex_t shared_lock;
static pthread_mutex_t own[MAX_THREADS];
static pthread_mutex_t nested;
static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static long total;
static long table_writes;
static long results[MAX_THREADS];
static int rounds = 4;
static __thread long mine;

static void check(int rc, const char* what) {
  if (rc != 0) {
    fprintf(stderr, "%s failed: %s\n", what, strerror(rc));
    abort();
  }
}

static void* worker(void* arg) {
  long id = (long)arg;
  check(pthread_mutex_lock(&own[id]), "lock own");
  for (int r = 0; r < rounds; ++r) {
    check(pthread_mutex_lock(&shared_lock), "lock shared");
    total += id + 1;
    mine = mine * 31 + total;
    check(pthread_mutex_unlock(&shared_lock), "unlock shared");
    check(pthread_mutex_lock(&nested), "lock nested");
    check(pthread_mutex_lock(&nested), "relock nested");
    mine += r;
    check(pthread_mutex_unlock(&nested), "unlock nested");
    check(pthread_mutex_unlock(&nested), "unlock nested twice");
    check(pthread_rwlock_wrlock(&table), "wrlock");
    table_writes += 1;
    check(pthread_rwlock_unlock(&table), "unlock table");
  }
  results[id] = mine;
  check(pthread_mutex_unlock(&own[id]), "unlock own");
  return NULL;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  if (n < 1 || n > MAX_THREADS) n = 4;
  if (argc > 2) rounds = atoi(argv[2]);
  pthread_mutexattr_t errorcheck, recursive;
  pthread_mutexattr_init(&errorcheck);
  pthread_mutexattr_settype(&errorcheck, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutexattr_init(&recursive);
  pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&shared_lock, &errorcheck);
  pthread_mutex_init(&nested, &recursive);
  for (int i = 0; i < n; ++i) pthread_mutex_init(&own[i], &errorcheck);
  pthread_t threads[MAX_THREADS];
  for (long i = 0; i < n; ++i) pthread_create(&threads[i], NULL, worker, (void*)i);
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  char text[1024];
  int len = snprintf(text, sizeof text, "total %ld writes %ld", total, table_writes);
  for (int i = 0; i < n && len < (int)sizeof text - 32; ++i)
    len += snprintf(text + len, sizeof text - len, " %ld", results[i]);
  len += snprintf(text + len, sizeof text - len, "\n");
  int fd = argc > 3 ? open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644) : 1;
  if (fd < 0 || write(fd, text, len) != len) return 99;
  if (fd != 1) close(fd);
  return (int)(total % 100);
}
