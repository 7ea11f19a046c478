/* Buggy by default: a reader checks a shared table while a writer is still
 * copying it. With "wait" as the first argument the reader first waits for
 * the writer's "copy done" flag, and the program is correct.
 *
 * The writer copies a staged snapshot (shorts) into the shared table (ints)
 * with a plain loop, which GCC -O2 vectorises (GCC 12 enables the vectoriser
 * at -O2 with its "very cheap" cost model): 16-byte SSE loads and stores
 * (movdqa/movaps), each moving four elements at once. The conversion is
 * there on purpose: a plain element-by-element copy would be turned into a
 * memcpy call, which is in libc and not visible. The reader checks that all
 * elements are equal, i.e. that it sees the whole table either before or
 * after the copy. Without waiting it may read between two vector stores, see
 * new and old elements, and the assertion fails. Natively the copy is a
 * handful of instructions and the reader almost always misses it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { N = 16 };

static short staging[N];
static int table[N];
static atomic_bool copied;
static int reader_waits;

static void *writer(void *arg) {
  (void)arg;
  for (int i = 0; i < N; ++i) table[i] = staging[i];
  atomic_store_explicit(&copied, 1, memory_order_release);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  if (reader_waits)
    while (!atomic_load_explicit(&copied, memory_order_acquire)) {
    }
  int first = table[0], same = 0;
  for (int i = 0; i < N; ++i) same += table[i] == first;
  printf("reader: %d of %d elements equal to %d\n", same, N, first);
  assert(same == N && "the reader saw a half-copied table");
  return NULL;
}

int main(int argc, char **argv) {
  reader_waits = argc > 1 && strcmp(argv[1], "wait") == 0;
  for (int i = 0; i < N; ++i) staging[i] = 7;
  pthread_t w, r;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  return 0;
}
