#include "MemorySnapshot.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>

#include "AgentDescriptors.h"
#include "RawCopy.h"
#include "RawSyscall.h"

namespace ctrl::agent {

namespace {

constexpr uint64_t kPage = 4096;
// The end of the user address space with 4-level page tables (mmap never
// returns higher addresses unless asked for them).
constexpr uint64_t kUserEnd = 0x7ffffffff000ULL;

// Linux 6.7's PAGEMAP_SCAN and asynchronous write-protect (Debian 12's
// headers predate them).
struct PmScanArg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
      category_anyof_mask, return_mask;
};
struct PageRegion {
  uint64_t start, end, categories;
};
constexpr unsigned long kPagemapScan = _IOWR('f', 16, PmScanArg);
constexpr uint64_t kIsWpAllowed = 1 << 0, kIsWritten = 1 << 1, kIsPresent = 1 << 3, kIsSwapped = 1 << 4;
constexpr uint64_t kFeatureWpAsync = 1 << 15;
constexpr int kUserModeOnly = 1;

constexpr size_t kMaxVmas = 8192;
constexpr size_t kMaxRanges = 65536;
constexpr size_t kMaxListed = 4096;
constexpr size_t kMapsText = 1 << 20;
constexpr size_t kVec = 4096;
// The program's memory is never copied with libc's memcpy (RawCopy.h).

constexpr uint64_t kZero = UINT64_MAX;

// A piece of a writable private mapping and where its armed content is.
struct SavedRange {
  uint64_t start, end;
  uint64_t data;  // offset of the first page's copy in `pages`, or kZero
};

struct RangeList {
  size_t n = 0;
  MemoryRange r[kMaxListed];
};

// An anonymous private mapping of the armed process that restore() can map
// again if an execution removes it: a writable one (registered, its content
// in the copies) or an inaccessible one (a guard page: no content).
struct Recreatable {
  uint64_t start, end;
  int prot;
};

}  // namespace

struct MemorySnapshot::State {
  int uffd = -1;
  int pagemap = -1;
  uint64_t brk = 0;
  uint8_t* pages = nullptr;  // copies
  size_t pages_size = 0;
  size_t nsaved = 0;
  SavedRange saved[kMaxRanges];
  // Armed process: what is registered, and what is not (the vdso, shared
  // mappings, the caller's exclusions); both as PAGEMAP_SCAN lists them.
  RangeList registered, unregistered;
  // Where written pages are looked for: the program's writable memory, one
  // scan per run of it (a scan costs about 2 us). Runs span unregistered
  // memory, which a scan skips whole, but not the registered memory that is
  // never put back (shared mappings, the agent's own).
  RangeList runs;
  // What restore() may map again (Recreatable), by address.
  size_t nrecreatable = 0;
  Recreatable recreatable[kMaxListed];
  // The pages found written (and no longer write-protected), with where
  // their armed content is: put back after every execution.
  size_t nhot = 0;
  SavedRange hot[kMaxRanges];
  bool hot_known = false;
  // The process's page faults when the last restore ended.
  uint64_t faults = 0;
  // The last fast restore's copy did not fault: the next one copies the
  // hot pages first and then counts the faults once (a count costs about
  // 2 us), instead of counting before and after.
  bool copy_first = false;
  // /proc/self/statm, and its first field at arm(): the size of the
  // address space, which any new or removed mapping changes.
  int statm = -1;
  uint64_t vsize = 0;
  // Scratch.
  RangeList found, found_unregistered;
  PageRegion vec[kVec];
  char maps[kMapsText];
};

namespace {

long scan(MemorySnapshot::State* s, uint64_t start, uint64_t end, uint64_t inverted, uint64_t mask, uint64_t ret,
          uint64_t* walk_end) {
  PmScanArg a{sizeof(PmScanArg), 0, start, end, 0, reinterpret_cast<uint64_t>(s->vec), kVec, 0, inverted, mask, 0, ret};
  long n = raw_syscall(SYS_ioctl, s->pagemap, long(kPagemapScan), reinterpret_cast<long>(&a));
  *walk_end = a.walk_end;
  return n;
}

// Every range of the address space whose pages match, merged; false when
// more than kMaxListed.
bool list_ranges(MemorySnapshot::State* s, uint64_t inverted, uint64_t mask, RangeList& out) {
  out.n = 0;
  uint64_t start = 0;
  while (start < kUserEnd) {
    uint64_t walk_end = kUserEnd;
    long n = scan(s, start, kUserEnd, inverted, mask, mask, &walk_end);
    if (n < 0) return false;
    for (long i = 0; i < n; ++i) {
      if (out.n > 0 && out.r[out.n - 1].end == s->vec[i].start) {
        out.r[out.n - 1].end = s->vec[i].end;
        continue;
      }
      if (out.n == kMaxListed) return false;
      out.r[out.n++] = MemoryRange{s->vec[i].start, s->vec[i].end};
    }
    if (size_t(n) < kVec || walk_end <= start) break;
    start = walk_end;
  }
  return true;
}

bool same(const RangeList& a, const RangeList& b) {
  if (a.n != b.n) return false;
  for (size_t i = 0; i < a.n; ++i)
    if (a.r[i].start != b.r[i].start || a.r[i].end != b.r[i].end) return false;
  return true;
}

// The first field of /proc/self/statm (pages mapped), 0 when unknown.
uint64_t address_space_size(int statm) {
  char buf[64];
  long n = raw_syscall(SYS_pread64, statm, reinterpret_cast<long>(buf), sizeof buf - 1, 0);
  if (n <= 0) return 0;
  uint64_t v = 0;
  for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) v = v * 10 + uint64_t(buf[i] - '0');
  return v;
}

uint64_t fault_count() {
  rusage ru;
  raw_syscall(SYS_getrusage, RUSAGE_SELF, reinterpret_cast<long>(&ru));
  return uint64_t(ru.ru_minflt) + uint64_t(ru.ru_majflt);
}

void put_back(const SavedRange& r, const uint8_t* pages) {
  if (r.data == kZero)
    zero_raw(reinterpret_cast<void*>(r.start), r.end - r.start);
  else
    copy_raw(reinterpret_cast<void*>(r.start), pages + r.data, r.end - r.start);
}

void* map_private(size_t size) {
  long p =
      raw_syscall(SYS_mmap, 0, long(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p < 0 && p > -4096 ? nullptr : reinterpret_cast<void*>(p);
}

// The copies' mapping, whose size follows the tracked memory: away from
// where the kernel places mappings (top-down below the libraries), where it
// would move every mapping the program makes later. The tracked memory
// includes the copies of files inherited open for writing (FileState.cpp),
// whose size a recording and its replay need not share: a Go program's
// runtime structures moved, and its replay diverged on their addresses.
// Falls back to the usual placement when that range is taken (a
// sanitizer's shadow) or the kernel ignores MAP_FIXED_NOREPLACE.
void* map_away(size_t size) {
  constexpr uint64_t kAwayBase = uint64_t(0x5800) << 32;
  uint64_t at = kAwayBase;
  for (int tries = 0; tries < 64; ++tries, at += uint64_t(1) << 32) {
    long p = raw_syscall(SYS_mmap, long(at), long(size), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (uint64_t(p) == at) return reinterpret_cast<void*>(p);
    if (p >= 0 || p < -4095) {  // taken as a hint: not this kernel
      raw_syscall(SYS_munmap, p, long(size));
      break;
    }
    if (p != -EEXIST) break;
  }
  return map_private(size);
}

// Moves an agent descriptor above the program's numbers and holds it.
int hide(int fd) {
  if (fd < 0) return fd;
  long moved = raw_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 903);
  raw_syscall(SYS_close, fd);
  return int(moved);
}

struct Vma {
  uint64_t start, end;
  int prot;
  bool writable, shared, file, special;
  bool named;  // [heap], [stack], [anon:...]: never mapped again by restore()
};

// Parses one line of /proc/self/maps.
bool parse_vma(const char*& p, const char* end, Vma& v) {
  if (p >= end) return false;
  auto hex = [&](uint64_t& out) {
    out = 0;
    for (; p < end; ++p) {
      char c = *p;
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) break;
      out = out * 16 + uint64_t(d);
    }
  };
  hex(v.start);
  if (p < end && *p == '-') ++p;
  hex(v.end);
  if (p < end) ++p;
  const char* perms = p;
  v.prot = 0;
  if (p + 2 < end)
    v.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0);
  v.writable = p + 1 < end && perms[1] == 'w';
  v.shared = p + 3 < end && perms[3] == 's';
  // offset, device, inode, then the name.
  int field = 0;
  uint64_t inode = 0;
  for (; p < end && *p != '\n' && field < 4; ++p)
    if (*p == ' ') {
      ++field;
      if (field == 4) break;
    }
  while (p < end && *p == ' ') ++p;
  for (; p < end && *p >= '0' && *p <= '9'; ++p) inode = inode * 10 + uint64_t(*p - '0');
  while (p < end && *p == ' ') ++p;
  const char* name = p;
  while (p < end && *p != '\n') ++p;
  size_t len = size_t(p - name);
  if (p < end) ++p;
  v.file = inode != 0;
  v.named = len > 0;
  v.special = (len >= 5 && memcmp(name, "[vdso", 5) == 0) || (len >= 5 && memcmp(name, "[vvar", 5) == 0) ||
              (len >= 10 && memcmp(name, "[vsyscall]", 10) == 0);
  return true;
}

}  // namespace

bool MemorySnapshot::tracks(uint64_t addr, uint64_t len) const {
  if (!state_) return false;
  for (size_t i = 0; i < state_->registered.n; ++i)
    if (state_->registered.r[i].start < addr + len && state_->registered.r[i].end > addr) return true;
  return false;
}

const char* MemorySnapshot::arm(const MemoryRange* exclude, size_t nexclude) {
  auto* s = static_cast<State*>(map_private(sizeof(State)));
  if (!s) return "no memory for the snapshot's tables";
  // Its own tables are excluded too.
  MemoryRange excluded[16];
  size_t nexcluded = 0;
  for (size_t i = 0; i < nexclude && nexcluded < 15; ++i) excluded[nexcluded++] = exclude[i];
  excluded[nexcluded++] = MemoryRange{reinterpret_cast<uint64_t>(s),
                                      reinterpret_cast<uint64_t>(s) + ((sizeof(State) + kPage - 1) & ~(kPage - 1))};
  exclude = excluded;
  nexclude = nexcluded;
  long uffd = raw_syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | kUserModeOnly);
  if (uffd < 0) uffd = raw_syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (uffd < 0) return "the kernel refuses userfaultfd (vm.unprivileged_userfaultfd, or no CONFIG_USERFAULTFD)";
  s->uffd = hide(int(uffd));
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = kFeatureWpAsync;
  if (raw_syscall(SYS_ioctl, s->uffd, long(UFFDIO_API), reinterpret_cast<long>(&api)) != 0)
    return "the kernel has no asynchronous userfaultfd write-protect (Linux 6.7 or later)";
  s->pagemap =
      hide(int(raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/pagemap"), O_RDONLY | O_CLOEXEC)));
  if (s->pagemap < 0) return "cannot open /proc/self/pagemap";
  {
    PageRegion probe;
    PmScanArg a{sizeof(PmScanArg), 0, 0, kPage, 0, reinterpret_cast<uint64_t>(&probe), 1, 0, 0, 0, 0, 0};
    if (raw_syscall(SYS_ioctl, s->pagemap, long(kPagemapScan), reinterpret_cast<long>(&a)) < 0)
      return "the kernel has no PAGEMAP_SCAN (Linux 6.7 or later)";
  }
  s->statm =
      hide(int(raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/statm"), O_RDONLY | O_CLOEXEC)));
  if (s->statm < 0) return "cannot open /proc/self/statm";
  // Hold them, so that the program cannot close them.
  hold_descriptor(&s->uffd);
  hold_descriptor(&s->pagemap);
  hold_descriptor(&s->statm);

  // The maps, read whole before anything changes them.
  long fd = raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/maps"), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot read /proc/self/maps";
  size_t len = 0;
  for (;;) {
    long n = raw_syscall(SYS_read, fd, reinterpret_cast<long>(s->maps + len), long(kMapsText - len));
    if (n <= 0) break;
    len += size_t(n);
    if (len == kMapsText) break;
  }
  raw_syscall(SYS_close, fd);
  if (len == kMapsText) return "too many mappings to track";

  // First pass: register and write-protect every private mapping outside
  // the exclusions, and size the copies.
  size_t pages_needed = 0;
  const char* p = s->maps;
  const char* end = s->maps + len;
  Vma v;
  // The mapping cut at the exclusions (which may share a VMA with it):
  // fn(from, to, excluded) for each piece, in address order.
  auto for_pieces = [&](const Vma& vma, auto&& fn) -> const char* {
    uint64_t from = vma.start;
    while (from < vma.end) {
      uint64_t to = vma.end;
      bool excluded = false;
      for (size_t i = 0; i < nexclude; ++i) {
        if (exclude[i].end <= from || exclude[i].start >= vma.end) continue;
        if (exclude[i].start <= from) {
          excluded = true;
          to = exclude[i].end < vma.end ? exclude[i].end : vma.end;
          break;
        }
        if (exclude[i].start < to) to = exclude[i].start;
      }
      if (const char* err = fn(from, to, excluded)) return err;
      from = to;
    }
    return nullptr;
  };
  // The armed content of a piece of a mapping (before it is write-protected).
  auto save = [&](uint64_t from, uint64_t to) -> const char* {
    if (!v.writable) return nullptr;
    // Copies: every page of a file mapping (a page not read yet holds the
    // file's bytes), the present pages of an anonymous one (the others
    // are zero).
    if (v.file) {
      if (s->nsaved == kMaxRanges) return "too many mappings to track";
      s->saved[s->nsaved++] = SavedRange{from, to, pages_needed * kPage};
      pages_needed += (to - from) / kPage;
      return nullptr;
    }
    uint64_t at = from;
    while (at < to) {
      PmScanArg a{sizeof(PmScanArg),
                  0,
                  at,
                  to,
                  0,
                  reinterpret_cast<uint64_t>(s->vec),
                  kVec,
                  0,
                  0,
                  0,
                  kIsPresent | kIsSwapped,
                  kIsPresent | kIsSwapped};
      long n = raw_syscall(SYS_ioctl, s->pagemap, long(kPagemapScan), reinterpret_cast<long>(&a));
      if (n < 0) return "PAGEMAP_SCAN failed";
      uint64_t cursor = at;
      for (long i = 0; i <= n; ++i) {
        uint64_t rs = i < n ? s->vec[i].start : (size_t(n) < kVec ? to : a.walk_end);
        uint64_t re = i < n ? s->vec[i].end : rs;
        if (rs > cursor) {
          if (s->nsaved == kMaxRanges) return "too many mappings to track";
          s->saved[s->nsaved++] = SavedRange{cursor, rs, kZero};
        }
        if (re > rs) {
          if (s->nsaved == kMaxRanges) return "too many mappings to track";
          s->saved[s->nsaved++] = SavedRange{rs, re, pages_needed * kPage};
          pages_needed += (re - rs) / kPage;
        }
        if (re > cursor) cursor = re;
      }
      if (size_t(n) < kVec || a.walk_end <= at) break;
      at = a.walk_end;
    }
    return nullptr;
  };
  enum class Kind { Hot, Other };
  Kind last = Kind::Other;
  auto add_piece = [&](uint64_t from, uint64_t to, Kind kind) -> const char* {
    if (kind == Kind::Hot) {
      if (last == Kind::Hot && s->runs.n > 0) {
        s->runs.r[s->runs.n - 1].end = to;
      } else {
        if (s->runs.n == kMaxListed) return "too many mappings to track";
        s->runs.r[s->runs.n++] = MemoryRange{from, to};
      }
    }
    last = kind;
    return nullptr;
  };
  auto protect = [&](uint64_t from, uint64_t to) -> bool {
    uffdio_writeprotect wp{};
    wp.range = {from, to - from};
    wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
    return raw_syscall(SYS_ioctl, s->uffd, long(UFFDIO_WRITEPROTECT), reinterpret_cast<long>(&wp)) == 0;
  };
  auto enroll = [&](uint64_t from, uint64_t to, bool whole) -> bool {
    uffdio_register reg{};
    reg.range = {from, to - from};
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    if (raw_syscall(SYS_ioctl, s->uffd, long(UFFDIO_REGISTER), reinterpret_cast<long>(&reg)) != 0) return false;
    return !whole || protect(from, to);
  };
  while (parse_vma(p, end, v)) {
    // Read-only mappings are not registered (the program cannot write them
    // without the mprotect interposer's knowing); shared ones and the
    // agent's own are registered but never put back, so that the check for
    // new mappings (an unregistered one) skips them whole.
    // A guard page (an inaccessible anonymous mapping: a thread stack's, an
    // alternate signal stack's) can be mapped again as it was.
    bool anonymous = !v.file && !v.named && !v.special && !v.shared;
    if (anonymous && v.prot == 0 && s->nrecreatable < kMaxListed)
      s->recreatable[s->nrecreatable++] = Recreatable{v.start, v.end, 0};
    if (v.special || (!v.writable && !v.shared)) continue;
    const char* err = for_pieces(v, [&](uint64_t from, uint64_t to, bool excluded) -> const char* {
      if (excluded || v.shared) {
        if (enroll(from, to, false)) return add_piece(from, to, Kind::Other);
        return nullptr;
      }
      size_t first = s->nsaved;
      if (const char* err = save(from, to)) return err;
      // Of an anonymous mapping only the populated pages are write-protected:
      // a page populated later is not protected, which PAGEMAP_SCAN counts as
      // written, as it should. Protecting the empty rest would make the kernel
      // walk it page by page (a sanitizer's shadow reserves terabytes: arming
      // took minutes).
      if (!enroll(from, to, v.file)) return "a private writable mapping cannot be write-protected";
      if (!v.file)
        for (size_t i = first; i < s->nsaved; ++i)
          if (s->saved[i].data != kZero && !protect(s->saved[i].start, s->saved[i].end))
            return "a private writable mapping cannot be write-protected";
      if (const char* err = add_piece(from, to, Kind::Hot)) return err;
      // Its content is in the copies: it can be mapped again.
      if (anonymous && s->nrecreatable < kMaxListed) s->recreatable[s->nrecreatable++] = Recreatable{from, to, v.prot};
      return nullptr;
    });
    if (err) return err;
  }
  // Second pass: the copies.
  s->pages_size = pages_needed * kPage;
  if (pages_needed) {
    s->pages = static_cast<uint8_t*>(map_away(s->pages_size));
    if (!s->pages) return "no memory for the snapshot's copies";
    uffdio_register reg{};
    reg.range = {reinterpret_cast<uint64_t>(s->pages), s->pages_size};
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    raw_syscall(SYS_ioctl, s->uffd, long(UFFDIO_REGISTER), reinterpret_cast<long>(&reg));
  }
  for (size_t i = 0; i < s->nsaved; ++i)
    if (s->saved[i].data != kZero)
      copy_raw(s->pages + s->saved[i].data, reinterpret_cast<void*>(s->saved[i].start),
               s->saved[i].end - s->saved[i].start);
  s->brk = uint64_t(raw_syscall(SYS_brk, 0));
  // Sorted by address (the maps are; the pieces of one mapping too).
  if (!list_ranges(s, 0, kIsWpAllowed, s->registered) || !list_ranges(s, kIsWpAllowed, kIsWpAllowed, s->unregistered))
    return "too many mappings to track";
  s->vsize = address_space_size(s->statm);
  if (s->vsize == 0) return "cannot read /proc/self/statm";
  state_ = s;
  return nullptr;
}

namespace {

bool register_wp(int uffd, uint64_t from, uint64_t to) {
  uffdio_register reg{};
  reg.range = {from, to - from};
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  return raw_syscall(SYS_ioctl, uffd, long(UFFDIO_REGISTER), reinterpret_cast<long>(&reg)) == 0;
}

bool write_protect(int uffd, uint64_t from, uint64_t to) {
  uffdio_writeprotect wp{};
  wp.range = {from, to - from};
  wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
  return raw_syscall(SYS_ioctl, uffd, long(UFFDIO_WRITEPROTECT), reinterpret_cast<long>(&wp)) == 0;
}

// [a, b) of an armed private writable mapping was replaced by a new mapping
// (a sanitizer's runtime maps fresh memory with MAP_FIXED over the middle
// of a large range of its shadow to clear it: TSan's reset of a thread's
// stack or of a freed block): mapped again, registered, and given its armed
// content, write-protected as at arm(). Only where the armed content is
// known page by page; otherwise the mapping was really replaced.
const char* put_back_replaced(MemorySnapshot::State* s, uint64_t a, uint64_t b) {
  static const char* const kReplaced = "the program replaced a mapping it had before its first thread";
  size_t first = 0;
  while (first < s->nsaved && s->saved[first].end <= a) ++first;
  uint64_t covered = a;
  for (size_t j = first; j < s->nsaved && s->saved[j].start < b && covered < b; ++j) {
    if (s->saved[j].start > covered) return kReplaced;
    covered = s->saved[j].end;
  }
  if (covered < b) return kReplaced;
  long m = raw_syscall(SYS_mmap, long(a), long(b - a), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (m != long(a) || !register_wp(s->uffd, a, b)) return kReplaced;
  for (size_t j = first; j < s->nsaved && s->saved[j].start < b; ++j) {
    const SavedRange& r = s->saved[j];
    if (r.data == kZero) continue;
    uint64_t from = r.start > a ? r.start : a, to = r.end < b ? r.end : b;
    put_back(SavedRange{from, to, r.data + (from - r.start)}, s->pages);
    if (!write_protect(s->uffd, from, to)) return kReplaced;
  }
  return nullptr;
}

// [from, to) is a mapping the armed process did not have unregistered: the
// parts that were not mapped at arm() are removed, the parts of an armed
// mapping put back (put_back_replaced).
const char* put_back_unregistered(MemorySnapshot::State* s, uint64_t from, uint64_t to) {
  uint64_t at = from;
  for (size_t q = 0; q < s->registered.n && at < to; ++q) {
    const MemoryRange& r = s->registered.r[q];
    if (r.end <= at) continue;
    if (r.start >= to) break;
    if (r.start > at) raw_syscall(SYS_munmap, long(at), long(r.start - at));
    uint64_t a = r.start > at ? r.start : at, b = r.end < to ? r.end : to;
    if (const char* err = put_back_replaced(s, a, b)) return err;
    at = b;
  }
  if (at < to) raw_syscall(SYS_munmap, long(at), long(to - at));
  return nullptr;
}

// The restore is complete: the hot list holds, and the faults counted so
// far (the restore's own included) are the baseline of the next one.
const char* settled(MemorySnapshot::State* s) {
  s->hot_known = true;
  s->faults = fault_count();
  return nullptr;
}

// [from, to) overlaps armed registered memory that restore() could not map
// again (a file's, a named one, the agent's own): an execution's mapping
// there cannot simply be removed.
bool covers_unrecreatable(const MemorySnapshot::State* s, uint64_t from, uint64_t to) {
  for (size_t q = 0; q < s->registered.n; ++q) {
    uint64_t a = s->registered.r[q].start > from ? s->registered.r[q].start : from;
    uint64_t b = s->registered.r[q].end < to ? s->registered.r[q].end : to;
    if (a >= b) continue;
    // (Recreatable entries are sorted by address.)
    for (size_t i = 0; i < s->nrecreatable && a < b; ++i) {
      const Recreatable& r = s->recreatable[i];
      if ((r.prot & PROT_WRITE) && r.start <= a && r.end > a) a = r.end;
    }
    if (a < b) return true;
  }
  return false;
}

// Maps [from, to) of a recreatable mapping again, as arm() left it: a
// writable one registered, its armed content copied back and its populated
// pages write-protected (so that the next write faults, as after arm()).
const char* map_again(MemorySnapshot::State* s, uint64_t from, uint64_t to, int prot) {
  long p = raw_syscall(SYS_mmap, long(from), long(to - from), prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                       -1, 0);
  if (p != long(from)) {
    if (p >= 0 || p < -4095) raw_syscall(SYS_munmap, p, long(to - from));
    return "the program replaced a mapping it had before its first thread";
  }
  if (!(prot & PROT_WRITE)) return nullptr;
  uffdio_register reg{};
  reg.range = {from, to - from};
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (raw_syscall(SYS_ioctl, s->uffd, long(UFFDIO_REGISTER), reinterpret_cast<long>(&reg)) != 0)
    return "a removed mapping could not be tracked again";
  for (size_t i = 0; i < s->nsaved; ++i) {
    const SavedRange& r = s->saved[i];
    if (r.end <= from) continue;
    if (r.start >= to) break;
    if (r.data == kZero) continue;  // never populated at arm(): a fresh mapping reads zero there too
    uint64_t a = r.start > from ? r.start : from, b = r.end < to ? r.end : to;
    put_back(SavedRange{a, b, r.data + (a - r.start)}, s->pages);
    uffdio_writeprotect wp{};
    wp.range = {a, b - a};
    wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
    if (raw_syscall(SYS_ioctl, s->uffd, long(UFFDIO_WRITEPROTECT), reinterpret_cast<long>(&wp)) != 0)
      return "a removed mapping could not be tracked again";
  }
  return nullptr;
}

// Maps again what an execution removed of the recreatable mappings (Rust's
// runtime unmaps the main thread's alternate signal stack and its guard
// page at exit; libc unmaps cached thread stacks beyond its cache).
const char* recreate_removed(MemorySnapshot::State* s) {
  if (!list_ranges(s, 0, kIsWpAllowed, s->found)) return "too many mappings to track";
  for (size_t i = 0; i < s->nrecreatable; ++i) {
    const Recreatable& r = s->recreatable[i];
    if (r.prot == 0) {
      // A guard page: mapped again if its whole range is free; still
      // there if all of it is mapped (msync fails on any hole).
      long p = raw_syscall(SYS_mmap, long(r.start), long(r.end - r.start), PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == long(r.start)) continue;
      if (p >= 0 || p < -4095) raw_syscall(SYS_munmap, p, long(r.end - r.start));
      if (raw_syscall(SYS_msync, long(r.start), long(r.end - r.start), MS_ASYNC) != 0)
        return "the program removed part of a guard page it had before its first thread";
      continue;
    }
    // The pieces of a writable one that are no longer registered.
    uint64_t at = r.start;
    size_t j = 0;
    while (at < r.end) {
      while (j < s->found.n && s->found.r[j].end <= at) ++j;
      if (j < s->found.n && s->found.r[j].start <= at) {
        at = s->found.r[j].end;
        continue;
      }
      uint64_t gap_end = j < s->found.n && s->found.r[j].start < r.end ? s->found.r[j].start : r.end;
      if (const char* err = map_again(s, at, gap_end, r.prot)) return err;
      at = gap_end;
    }
  }
  return nullptr;
}

// [from, to) is a mapping the armed process did not have there. Over no
// armed memory, or over anonymous armed memory recreate_removed() maps
// again (Rust's guard pages, a thread stack), it is simply removed; over
// other armed memory, the pieces whose content is known page by page are
// put back at once (TSan's shadow, cleared with MAP_FIXED).
const char* remove_new(MemorySnapshot::State* s, uint64_t from, uint64_t to) {
  if (covers_unrecreatable(s, from, to)) return put_back_unregistered(s, from, to);
  raw_syscall(SYS_munmap, long(from), long(to - from));
  return nullptr;
}
}  // namespace

uint64_t MemorySnapshot::heap_end() const { return state_ ? state_->brk : 0; }

const char* MemorySnapshot::restore(bool heap_end_unmoved) {
  State* s = state_;
  if (!s) return "memory is not tracked";
  // The heap's end first: brk areas are not re-registered.
  uint64_t brk = heap_end_unmoved ? s->brk : uint64_t(raw_syscall(SYS_brk, 0));
  if (brk > s->brk) {
    raw_syscall(SYS_brk, long(s->brk));
    brk = uint64_t(raw_syscall(SYS_brk, 0));
  }
  if (brk != s->brk) return "the program gave back heap memory (brk shrank)";

  // Fast path: nothing faulted, the size is the armed one.
  if (s->hot_known && address_space_size(s->statm) == s->vsize) {
    if (s->copy_first) {
      for (size_t i = 0; i < s->nhot; ++i) put_back(s->hot[i], s->pages);
      // Nothing faulted since the last restore, the copy included.
      if (fault_count() == s->faults) return nullptr;
      // The execution wrote new pages (found below), or the copy faulted.
      s->copy_first = false;
    } else if (fault_count() == s->faults) {
      for (size_t i = 0; i < s->nhot; ++i) put_back(s->hot[i], s->pages);
      // A hot page libc dropped (a finished thread's stack) faulted back in.
      uint64_t faults = fault_count();
      s->copy_first = faults == s->faults;
      s->faults = faults;
      return nullptr;
    }
  }
  s->hot_known = false;
  s->nhot = 0;

  // The written pages (a walk of the page tables costs by the page, and
  // each scan about 2 us).
  size_t k = 0;
  for (size_t run = 0; run < s->runs.n; ++run) {
    uint64_t start = s->runs.r[run].start, stop = s->runs.r[run].end;
    while (k < s->nsaved && s->saved[k].end <= start) ++k;
    while (start < stop) {
      uint64_t walk_end = stop;
      long n = scan(s, start, stop, 0, kIsWpAllowed | kIsWritten, kIsWritten | kIsPresent | kIsSwapped, &walk_end);
      if (n < 0) return "PAGEMAP_SCAN failed";
      for (long i = 0; i < n; ++i) {
        uint64_t ws = s->vec[i].start, we = s->vec[i].end;
        // A page not populated now (never written, or dropped by libc's
        // madvise of a finished thread's stack) reads as zero: it needs its
        // copy only if it had content.
        bool present = s->vec[i].categories & (kIsPresent | kIsSwapped);
        while (k < s->nsaved && s->saved[k].end <= ws) ++k;
        for (size_t j = k; j < s->nsaved && s->saved[j].start < we; ++j) {
          const SavedRange& r = s->saved[j];
          uint64_t a = ws > r.start ? ws : r.start, b = we < r.end ? we : r.end;
          if (a >= b || (!present && r.data == kZero)) continue;
          SavedRange piece{a, b, r.data == kZero ? kZero : r.data + (a - r.start)};
          put_back(piece, s->pages);
          // Hot from now on (a page put back is populated and unprotected) (merged with the previous piece when both
          // continue each other).
          SavedRange* prev = s->nhot ? &s->hot[s->nhot - 1] : nullptr;
          if (prev && prev->end == a &&
              (prev->data == kZero ? piece.data == kZero
                                   : piece.data != kZero && prev->data + (prev->end - prev->start) == piece.data))
            prev->end = b;
          else if (s->nhot < kMaxRanges)
            s->hot[s->nhot++] = piece;
          else
            return "too many written pages to track";
        }
      }
      if (size_t(n) < kVec || walk_end <= start) break;
      start = walk_end;
    }
  }

  // The mappings: the address space has its armed size and no mapping is
  // unregistered that was not (registration is a property of the whole
  // mapping: that scan walks only unregistered ones).
  if (!list_ranges(s, kIsWpAllowed, kIsWpAllowed, s->found)) return "too many mappings to track";
  bool intact = address_space_size(s->statm) == s->vsize && same(s->found, s->unregistered);
  if (intact) return settled(s);

  // Mappings the execution created: removed when they lie outside the
  // armed ones (a thread stack, a malloc'd block, a library).
  if (!list_ranges(s, kIsWpAllowed, kIsWpAllowed, s->found)) return "too many mappings to track";
  if (!same(s->found, s->unregistered)) {
    size_t u = 0;
    for (size_t i = 0; i < s->found.n; ++i) {
      uint64_t fs = s->found.r[i].start, fe = s->found.r[i].end;
      // Subtract the armed unregistered ranges.
      while (u < s->unregistered.n && s->unregistered.r[u].end <= fs) ++u;
      uint64_t from = fs;
      for (size_t j = u; j < s->unregistered.n && s->unregistered.r[j].start < fe && from < fe; ++j) {
        const MemoryRange& x = s->unregistered.r[j];
        if (x.start > from)
          if (const char* err = remove_new(s, from, x.start)) return err;
        if (x.end > from) from = x.end;
      }
      if (from < fe)
        if (const char* err = remove_new(s, from, fe)) return err;
    }
  }
  // And none of the armed ones may be gone: the anonymous ones removed are
  // mapped again with their armed content.
  if (!list_ranges(s, 0, kIsWpAllowed, s->found)) return "too many mappings to track";
  if (!same(s->found, s->registered) || address_space_size(s->statm) != s->vsize) {
    if (const char* err = recreate_removed(s)) return err;
    if (!list_ranges(s, 0, kIsWpAllowed, s->found)) return "too many mappings to track";
  }
  if (!same(s->found, s->registered)) return "the program removed a mapping it had before its first thread";
  if (address_space_size(s->statm) != s->vsize) return "the address space changed in a way not understood";
  return settled(s);
}

}  // namespace ctrl::agent
