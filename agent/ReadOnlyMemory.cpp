#include "ReadOnlyMemory.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include "RawSyscall.h"

namespace ctrl::agent::read_only_memory {

namespace {

struct Range {
  uint64_t start, end;
};

constexpr size_t kMaxRanges = 1024;
Range ranges[kMaxRanges];  // sorted, disjoint
size_t count = 0;

uint64_t hex(const char*& p, const char* end) {
  uint64_t v = 0;
  for (; p < end; ++p) {
    char c = *p;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) break;
    v = v * 16 + uint64_t(d);
  }
  return v;
}

}  // namespace

void record() {
  count = 0;
  long fd = raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/maps"), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  // Line by line through a buffer: a line is far shorter than it.
  static char buf[16384];
  size_t have = 0;
  bool eof = false;
  while (!eof || have > 0) {
    if (!eof && have < sizeof buf) {
      long n = raw_syscall(SYS_read, fd, reinterpret_cast<long>(buf + have), long(sizeof buf - have));
      if (n <= 0)
        eof = true;
      else
        have += size_t(n);
    }
    const char* end = buf + have;
    const char* nl = buf;
    while (nl < end && *nl != '\n') ++nl;
    if (nl == end && !eof && have < sizeof buf) continue;
    // start-end perms offset dev inode name
    const char* p = buf;
    uint64_t start = hex(p, nl);
    if (p < nl) ++p;
    uint64_t stop = hex(p, nl);
    if (p < nl) ++p;
    bool readable = p + 3 < nl && p[0] == 'r', writable = p + 3 < nl && p[1] == 'w', priv = p + 3 < nl && p[3] == 'p';
    int field = 0;
    for (; p < nl && field < 3; ++p)
      if (*p == ' ') ++field;
    while (p < nl && *p == ' ') ++p;
    uint64_t inode = 0;
    for (; p < nl && *p >= '0' && *p <= '9'; ++p) inode = inode * 10 + uint64_t(*p - '0');
    if (readable && !writable && priv && inode != 0 && stop > start) {
      if (count > 0 && ranges[count - 1].end == start)
        ranges[count - 1].end = stop;
      else if (count < kMaxRanges)
        ranges[count++] = Range{start, stop};
    }
    size_t used = nl < end ? size_t(nl - buf) + 1 : have;
    for (size_t i = used; i < have; ++i) buf[i - used] = buf[i];
    have -= used;
  }
  raw_syscall(SYS_close, fd);
}

bool contains(uint64_t addr, uint64_t size) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ranges[mid].end <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && ranges[lo].start <= addr && addr + size <= ranges[lo].end;
}

void note_protection_change(uint64_t addr, uint64_t len) {
  for (size_t i = 0; i < count; ++i)
    if (ranges[i].start < addr + len && ranges[i].end > addr) {
      count = 0;
      return;
    }
}

}  // namespace ctrl::agent::read_only_memory
