#include "PanicWatch.h"

#include <sys/syscall.h>

#include <cstring>

#include "RawSyscall.h"
#include "Runtime.h"

namespace ctrl::agent::panic_watch {

namespace {

bool starts_with(const char* text, size_t n, const char* prefix) {
  size_t k = strlen(prefix);
  return n >= k && memcmp(text, prefix, k) == 0;
}

// The hook's text is whole once the message line after "panicked at
// FILE:L:C:" has ended.
bool whole(const char* text, size_t n) {
  static constexpr char kAt[] = " panicked at ";  // after "thread 'NAME'", or "thread 'NAME' (TID)"
  const char* at = static_cast<const char*>(memmem(text, n, kAt, sizeof kAt - 1));
  if (!at) return false;
  const char* end = text + n;
  const char* line = static_cast<const char*>(memchr(at, '\n', size_t(end - at)));
  return line && memchr(line + 1, '\n', size_t(end - line - 1)) != nullptr;
}

}  // namespace

void on_stderr(const void* buf, size_t n) {
  shm::Header* h = rt.region.header;
  if (!h || n == 0 || h->panic_done) return;
  const char* text = static_cast<const char*>(buf);
  int32_t tid = int32_t(raw_syscall(SYS_gettid));
  int32_t owner = h->panic_tid.load(std::memory_order_acquire);
  if (owner == 0) {
    if (!starts_with(text, n, "\nthread '") && !starts_with(text, n, "thread '")) return;
    if (!h->panic_tid.compare_exchange_strong(owner, tid, std::memory_order_acq_rel)) return;
    h->panic_thread = t_me < shm::kMaxThreads ? t_me : 0;
    h->panic_len = 0;
  } else if (owner != tid) {
    return;  // another thread's output meanwhile
  }
  uint32_t room = shm::kPanicTextSize - 1 - h->panic_len;
  uint32_t take = n < room ? uint32_t(n) : room;
  memcpy(h->panic_text + h->panic_len, text, take);
  h->panic_len += take;
  h->panic_text[h->panic_len] = 0;
  if (h->panic_len == shm::kPanicTextSize - 1 || whole(h->panic_text, h->panic_len)) h->panic_done = 1;
}

}  // namespace ctrl::agent::panic_watch
