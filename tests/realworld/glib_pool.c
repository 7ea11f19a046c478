// A GLib program for the realworld suite: a GThreadPool of two threads
// checksums the lines of a text file, one task per block of lines; each
// task stores its result in its own slot and counts itself under a GMutex,
// and the main thread waits on a GCond until all are done. The printed
// result does not depend on the schedule.
// Usage: glib_pool FILE
#include <glib.h>
#include <stdio.h>

typedef struct {
  const char* start;
  gsize length;
  guint64 checksum;
  guint lines;
} Block;

static GMutex lock;
static GCond all_done;
static guint done;
static guint total;

static void checksum_block(gpointer data, gpointer user_data) {
  Block* b = data;
  (void)user_data;
  guint64 h = 1469598103934665603ull;
  for (gsize i = 0; i < b->length; ++i) {
    h = (h ^ (guchar)b->start[i]) * 1099511628211ull;
    if (b->start[i] == '\n') b->lines++;
  }
  b->checksum = h;
  g_mutex_lock(&lock);
  if (++done == total) g_cond_signal(&all_done);
  g_mutex_unlock(&lock);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: glib_pool FILE\n");
    return 2;
  }
  gchar* text;
  gsize n;
  GError* error = NULL;
  if (!g_file_get_contents(argv[1], &text, &n, &error)) {
    fprintf(stderr, "%s\n", error->message);
    return 2;
  }
  // Blocks of about 4 KiB, cut after a newline.
  GArray* blocks = g_array_new(FALSE, TRUE, sizeof(Block));
  for (gsize at = 0; at < n;) {
    gsize end = at + 4096 < n ? at + 4096 : n;
    while (end < n && text[end - 1] != '\n') ++end;
    Block b = {text + at, end - at, 0, 0};
    g_array_append_val(blocks, b);
    at = end;
  }
  total = blocks->len;
  GThreadPool* pool = g_thread_pool_new(checksum_block, NULL, 2, TRUE, &error);
  if (!pool) {
    fprintf(stderr, "%s\n", error->message);
    return 2;
  }
  for (guint i = 0; i < blocks->len; ++i) g_thread_pool_push(pool, &g_array_index(blocks, Block, i), NULL);
  g_mutex_lock(&lock);
  while (done < total) g_cond_wait(&all_done, &lock);
  g_mutex_unlock(&lock);
  g_thread_pool_free(pool, FALSE, TRUE);

  guint64 combined = 0;
  guint lines = 0;
  for (guint i = 0; i < blocks->len; ++i) {
    Block* b = &g_array_index(blocks, Block, i);
    combined = combined * 31 + b->checksum;
    lines += b->lines;
  }
  printf("blocks: %u, lines: %u, checksum: %016llx\n", blocks->len, lines, (unsigned long long)combined);
  g_array_free(blocks, TRUE);
  g_free(text);
  return 0;
}
