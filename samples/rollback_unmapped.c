/* Memory the program had when it created its first thread, unmapped by an
 * execution: what Rust's runtime does at exit (it unmaps the main thread's
 * alternate signal stack and its guard page) and libc when it frees a cached
 * thread stack. Every execution checks first that both mappings are there
 * with their content, then unmaps one (guard page and all) and replaces the
 * other with a new mapping at the same address, filled with other bytes.
 * Rolled back in place, both must come back as they were at the checkpoint.
 * Two workers take a mutex in turn: correct. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { kPage = 4096 };
static char* guarded;  /* a guard page, then two pages: the first written */
static char* replaced; /* two pages, both written */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  counter++;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void check(const char* p, size_t n, char c) {
  for (size_t i = 0; i < n; ++i) assert(p[i] == c);
}

int main(void) {
  guarded = mmap(NULL, 3 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  replaced = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(guarded != MAP_FAILED && replaced != MAP_FAILED);
  assert(mprotect(guarded, kPage, PROT_NONE) == 0);
  memset(guarded + kPage, 'g', kPage);
  memset(replaced, 'r', 2 * kPage);

  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  /* As at the checkpoint: the content, the untouched page's zeros, and the
   * guard page still inaccessible (mprotect of a hole fails with ENOMEM). */
  check(guarded + kPage, kPage, 'g');
  check(guarded + 2 * kPage, kPage, 0);
  check(replaced, 2 * kPage, 'r');
  unsigned char present;
  assert(mincore(guarded, kPage, &present) == 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  assert(counter == 2);

  memset(guarded + 2 * kPage, 'x', 16);
  assert(munmap(guarded, 3 * kPage) == 0);
  char* again = mmap(replaced, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  assert(again == replaced);
  memset(replaced, 'n', kPage);
  return 0;
}
