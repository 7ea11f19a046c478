#include "FileJournal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>

#include "DirectoryEntries.h"
#include "FileState.h"
#include "Notice.h"
#include "RealFunctions.h"
#include "Runtime.h"

namespace ctrl::agent::journal {

namespace {

enum class Kind : uint8_t { Created, Content, Removed, Renamed, Exchanged };
enum class Type : uint8_t { File, Directory, Symlink, Other };

struct Entry {
  Kind kind;
  Type type;
  bool size_only;  // only appended to: cutting it back to `size` restores it
  bool lost;       // the copy did not fit: not restored
  bool linked;     // a removed file kept under a second name (pool offset in `data`)
  uint32_t mode;
  uint32_t path, path2;  // offsets in the pool
  uint64_t data, size;   // the copy in the data area (a symlink's target: pool offset)
  uint64_t dev, ino;
  struct timespec times[2];  // atime, mtime
};

constexpr uint32_t kMaxEntries = 16384;
constexpr uint32_t kPoolSize = 4u << 20;
constexpr uint64_t kDataSize = uint64_t(512) << 20;
constexpr uint32_t kMaxNotices = 8;
constexpr uint32_t kNone = UINT32_MAX;

struct Journal {
  std::atomic<uint32_t> lock;
  uint32_t count;
  uint32_t pool_used;
  uint32_t notices;
  uint64_t data_used;
  int32_t server;   // the fork server's pid
  uint32_t links;   // links made
  uint32_t starts;  // executions that recorded into it
  uint64_t recorded;  // changes ever journalled, by every execution (mark())
  Entry entries[kMaxEntries];
  char pool[kPoolSize];
  alignas(4096) char data[kDataSize];
};

Journal* j = nullptr;
bool recording_ = false;

struct Locked {
  Locked() {
    while (j->lock.exchange(1, std::memory_order_acquire)) real.sched_yield();
  }
  ~Locked() { j->lock.store(0, std::memory_order_release); }
};

void fd_link(int fd, char (&out)[32]) {
  const char prefix[] = "/proc/self/fd/";
  memcpy(out, prefix, sizeof prefix - 1);
  char digits[12];
  int n = 0;
  unsigned v = unsigned(fd);
  do digits[n++] = char('0' + v % 10);
  while ((v /= 10) != 0);
  size_t at = sizeof prefix - 1;
  while (n) out[at++] = digits[--n];
  out[at] = 0;
}

// `path` as an absolute path (not canonical: symlinks and dots stay, which
// resolve the same way when the journal is undone).
bool absolute(int dirfd, const char* path, char (&out)[PATH_MAX]) {
  if (!path || !*path) return false;
  size_t n = 0;
  if (path[0] != '/') {
    if (dirfd == AT_FDCWD) {
      if (!getcwd(out, sizeof out)) return false;
      n = strlen(out);
    } else {
      char link[32];
      fd_link(dirfd, link);
      ssize_t r = readlink(link, out, sizeof out - 1);
      if (r <= 0) return false;
      n = size_t(r);
    }
    if (out[n - 1] != '/') out[n++] = '/';
  }
  size_t len = strlen(path);
  if (n + len >= sizeof out) return false;
  memcpy(out + n, path, len + 1);
  return true;
}

uint32_t intern(const char* s, size_t len) {
  if (j->pool_used + len + 1 > kPoolSize) return kNone;
  uint32_t at = j->pool_used;
  memcpy(j->pool + at, s, len);
  j->pool[at + len] = 0;
  j->pool_used += uint32_t(len + 1);
  return at;
}

void notice_lost(const char* path, const char* why) {
  if (j->notices >= kMaxNotices) return;
  if (++j->notices == kMaxNotices) {
    send_notice("more file changes executions cannot undo: not listed");
    return;
  }
  char text[PATH_MAX + 200];
  snprintf(text, sizeof text, "%s: %s; later executions see this change (not undone)", path, why);
  send_notice(text);
}

Entry* add(Kind kind, const char* path, const char* path2 = nullptr) {
  // For the controller, even when the change cannot be recorded: a live
  // checkpoint no longer finds the files it saw (its restore undoes nothing).
  if (rt.region.header) rt.region.header->files_changed.store(1, std::memory_order_release);
  if (j->count >= kMaxEntries) {
    notice_lost(path, "more than 16384 file changes in one execution");
    return nullptr;
  }
  uint32_t p = intern(path, strlen(path));
  uint32_t p2 = path2 ? intern(path2, strlen(path2)) : kNone;
  if (p == kNone || (path2 && p2 == kNone)) {
    notice_lost(path, "the file journal's path space is full");
    return nullptr;
  }
  // Complete before it counts: an execution may be killed anywhere (hang,
  // Ctrl-C), and the next one undoes what it finds. A copy is not
  // trusted until it is whole (the change it saves comes after it).
  Entry& e = j->entries[j->count];
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.path = p;
  e.path2 = p2;
  e.lost = kind == Kind::Content || kind == Kind::Removed;
  __atomic_store_n(&j->count, j->count + 1, __ATOMIC_RELEASE);
  __atomic_add_fetch(&j->recorded, 1, __ATOMIC_RELEASE);
  return &e;
}

// The latest entry that names `path`, or null.
const Entry* latest(const char* path) {
  for (uint32_t i = j->count; i-- > 0;) {
    const Entry& e = j->entries[i];
    if (strcmp(j->pool + e.path, path) == 0 || (e.path2 != kNone && strcmp(j->pool + e.path2, path) == 0)) return &e;
  }
  return nullptr;
}

// Whether the execution already made `path` (it did not exist at the
// checkpoint) or already saved the file it holds.
bool already_saved(const char* path, const struct stat* st) {
  const Entry* e = latest(path);
  if (!e || strcmp(j->pool + e->path, path) != 0) return false;
  if (e->kind == Kind::Created) return true;
  return e->kind == Kind::Content && st && e->dev == st->st_dev && e->ino == st->st_ino;
}

// Copies the regular file `path` (`size` bytes) into the data area.
bool copy_in(const char* path, uint64_t size, uint64_t& at) {
  if (j->data_used + size > kDataSize) return false;
  at = j->data_used;
  int fd = real.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, j->data + at + done, size - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += uint64_t(n);
  }
  real.close(fd);
  j->data_used += (done + 63) & ~uint64_t(63);
  return done == size;
}

// Replaces `path` by the file it names, symlinks resolved (the kernel's
// name for it, through an O_PATH descriptor: no heap, unlike realpath).
// False when that cannot be told.
bool resolved(char (&path)[PATH_MAX]) {
  int fd = real.open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return false;
  char link[32];
  fd_link(fd, link);
  char target[PATH_MAX];
  ssize_t n = readlink(link, target, sizeof target - 1);
  real.close(fd);
  if (n <= 0 || target[0] != '/') return false;
  memcpy(path, target, size_t(n));
  path[n] = 0;
  return true;
}

void save_file(Entry& e, const char* path, const struct stat& st, bool size_only) {
  e.type = Type::File;
  e.mode = st.st_mode;
  e.dev = st.st_dev;
  e.ino = st.st_ino;
  e.size = uint64_t(st.st_size);
  e.times[0] = st.st_atim;
  e.times[1] = st.st_mtim;
  e.size_only = size_only;
  if (size_only || copy_in(path, e.size, e.data)) {
    e.lost = false;
    return;
  }
  notice_lost(path, j->data_used + e.size > kDataSize ? "too large to keep a copy of (512 MiB of copies per execution)"
                                                      : "cannot be read to keep a copy");
}

// Gives the file at `path` a second name next to it; false when it cannot
// (another file system's rules, a full pool).
bool keep_link(Entry& e, const char* path) {
  char name[PATH_MAX];
  const char* slash = strrchr(path, '/');
  size_t dir = size_t(slash - path) + 1;
  // An unpredictable name: another user who could guess it could plant a
  // file or symlink there for the undo to rename over `path`, or for the
  // commit to remove. getrandom is the system call, not the program's
  // (possibly interposed) function.
  uint64_t nonce = 0;
  if (real.syscall(SYS_getrandom, &nonce, sizeof nonce, 0) != long(sizeof nonce)) return false;
  ++j->links;
  int n = snprintf(name, sizeof name, "%.*s.ctrl-keep-%016llx", int(dir), path, static_cast<unsigned long long>(nonce));
  if (n <= 0 || size_t(n) >= sizeof name || real.link(path, name) != 0) return false;
  uint32_t at = intern(name, size_t(n));
  if (at == kNone) {
    real.unlink(name);
    return false;
  }
  e.data = at;
  e.linked = true;
  e.lost = false;
  return true;
}

// Records what removing (or replacing) `path` takes away.
void save_removed(const char* path, const struct stat& st) {
  if (already_saved(path, nullptr)) return;  // made by this execution
  Entry* e = add(Kind::Removed, path);
  if (!e) return;
  if (S_ISREG(st.st_mode)) {
    e->type = Type::File;
    if (file_state::held_at_checkpoint(st.st_dev, st.st_ino) && keep_link(*e, path)) return;
    save_file(*e, path, st, false);
    return;
  }
  e->mode = st.st_mode;
  e->times[0] = st.st_atim;
  e->times[1] = st.st_mtim;
  e->lost = false;
  if (S_ISDIR(st.st_mode)) {
    e->type = Type::Directory;
  } else if (S_ISLNK(st.st_mode)) {
    e->type = Type::Symlink;
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    uint32_t at = n > 0 ? intern(target, size_t(n)) : kNone;
    if (at == kNone) e->lost = true;
    e->data = at;
  } else {
    e->type = Type::Other;
    e->size = st.st_rdev;
  }
}

void remove_tree_at(int parent, const char* name, int depth) {
  if (real.unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  if (real.unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY || depth > 64) return;
  // A directory the execution made, with files in it the journal did not
  // see (made by a program the execution ran): all of it goes.
  int dir = real.openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir >= 0) {
    for_each_entry(dir, [&](const char* entry) { remove_tree_at(dir, entry, depth + 1); });
    real.close(dir);
  }
  real.unlinkat(parent, name, AT_REMOVEDIR);
}

// Writes the saved file back at `path`: in place when a regular file is
// there (its inode, which descriptors may hold, stays), else as a new file.
// Never through a symlink: one found at `path` (the journal records
// resolved paths, so someone else planted it) is replaced by the file; a
// FIFO or device there is left alone.
void write_back(const char* path, const Entry& e) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK;
  int fd = real.open(path, kFlags, e.mode & 07777);
  if (fd < 0 && errno == ELOOP && real.unlink(path) == 0) fd = real.open(path, kFlags | O_EXCL, e.mode & 07777);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    real.close(fd);
    return;
  }
  if (ftruncate(fd, off_t(e.size_only ? e.size : 0)) == 0 && !e.size_only) {
    for (uint64_t done = 0; done < e.size;) {
      ssize_t n = pwrite(fd, j->data + e.data + done, e.size - done, off_t(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += uint64_t(n);
    }
  }
  fchmod(fd, e.mode & 07777);
  futimens(fd, e.times);
  real.close(fd);
}

void undo_entry(const Entry& e) {
  const char* path = j->pool + e.path;
  switch (e.kind) {
    case Kind::Created:
      remove_tree_at(AT_FDCWD, path, 0);
      break;
    case Kind::Content:
      if (!e.lost) write_back(path, e);
      break;
    case Kind::Removed:
      if (e.lost) break;
      switch (e.type) {
        case Type::File:
          if (e.linked) {
            // The link itself when the removal never happened (killed).
            real.rename(j->pool + e.data, path);
            real.unlink(j->pool + e.data);
          } else {
            write_back(path, e);
          }
          break;
        case Type::Directory:
          real.mkdir(path, e.mode & 07777);
          break;
        case Type::Symlink:
          real.symlink(j->pool + e.data, path);
          break;
        case Type::Other:
          mknod(path, e.mode, dev_t(e.size));
          break;
      }
      if (e.type != Type::File && e.type != Type::Symlink) utimensat(AT_FDCWD, path, e.times, AT_SYMLINK_NOFOLLOW);
      break;
    case Kind::Renamed:
      real.rename(j->pool + e.path2, path);
      break;
    case Kind::Exchanged:
      real.syscall(SYS_renameat2, AT_FDCWD, path, AT_FDCWD, j->pool + e.path2, RENAME_EXCHANGE);
      break;
  }
}

}  // namespace

bool create() {
  void* p = mmap(nullptr, sizeof(Journal), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  j = static_cast<Journal*>(p);
  j->server = int32_t(getpid());
  return true;
}

void commit() {
  if (!j) return;
  AgentScope scope;
  for (uint32_t i = 0; i < j->count; ++i)
    if (j->entries[i].linked) real.unlink(j->pool + j->entries[i].data);
  j->count = 0;
}

void undo_and_record() {
  undo();
  if (j) {
    ++j->starts;
    recording_ = true;
  }
}

uint64_t mark() {
  if (!j) return 0;
  // Nothing journalled since: the files are as they were, whatever ran.
  // Else, a change since, or an execution started since that undid this
  // one's changes from before the mark, makes a different mark.
  uint64_t recorded = __atomic_load_n(&j->recorded, __ATOMIC_ACQUIRE);
  return recorded == 0 ? 0 : (uint64_t(j->starts) << 32) ^ recorded;
}

void undo() {
  if (!j) return;
  AgentScope scope;
  // The previous execution is gone, possibly killed while it held the lock.
  j->lock.store(0, std::memory_order_relaxed);
  for (uint32_t i = j->count; i-- > 0;) undo_entry(j->entries[i]);
  j->count = 0;
  j->pool_used = 0;
  if (j->data_used) {
    // Give the copies' memory back (a shared mapping keeps its pages).
    madvise(j->data, (j->data_used + 4095) & ~uint64_t(4095), MADV_REMOVE);
    j->data_used = 0;
  }
}

bool recording() { return recording_ && !t_in_agent; }

void before_open(int dirfd, const char* path, int flags) {
  if ((flags & O_TMPFILE) == O_TMPFILE) return;  // nameless until linked (linkat is journalled)
  bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
  bool creates = flags & O_CREAT;
  if (!writes && !creates) return;
  char abs[PATH_MAX];
  if (!absolute(dirfd, path, abs)) return;
  AgentScope scope;
  Locked lock;
  struct stat st;
  if (stat(abs, &st) != 0) {
    if (creates && errno == ENOENT && !already_saved(abs, nullptr)) add(Kind::Created, abs);
    return;
  }
  if (!S_ISREG(st.st_mode) || !writes || (creates && (flags & O_EXCL)) || already_saved(abs, &st)) return;
  // Through a symlink: the file it names is journalled, which the undo
  // writes without following symlinks (write_back).
  struct stat own;
  if (lstat(abs, &own) == 0 && S_ISLNK(own.st_mode) && !resolved(abs)) return;
  if (Entry* e = add(Kind::Content, abs))
    save_file(*e, abs, st, (flags & O_APPEND) && !(flags & O_TRUNC) && !(flags & O_RDWR));
}

void before_truncate(const char* path) { before_open(AT_FDCWD, path, O_WRONLY); }

void before_remove(int dirfd, const char* path) {
  char abs[PATH_MAX];
  if (!absolute(dirfd, path, abs)) return;
  AgentScope scope;
  Locked lock;
  struct stat st;
  if (lstat(abs, &st) == 0) save_removed(abs, st);
}

void before_rename(int old_dirfd, const char* old_path, int new_dirfd, const char* new_path, unsigned flags) {
  char from[PATH_MAX], to[PATH_MAX];
  if (!absolute(old_dirfd, old_path, from) || !absolute(new_dirfd, new_path, to)) return;
  AgentScope scope;
  Locked lock;
  struct stat src, dst;
  if (lstat(from, &src) != 0) return;
  bool replaces = lstat(to, &dst) == 0;
  if (flags & RENAME_EXCHANGE) {
    if (replaces) add(Kind::Exchanged, from, to);
    return;
  }
  if (replaces) {
    if (src.st_dev == dst.st_dev && src.st_ino == dst.st_ino) return;  // rename does nothing
    if (flags & RENAME_NOREPLACE) return;                              // fails
    save_removed(to, dst);
  }
  add(Kind::Renamed, from, to);
}

void before_create(int dirfd, const char* path) {
  char abs[PATH_MAX];
  if (!absolute(dirfd, path, abs)) return;
  AgentScope scope;
  Locked lock;
  struct stat st;
  if (lstat(abs, &st) != 0 && errno == ENOENT && !already_saved(abs, nullptr)) add(Kind::Created, abs);
}

void created(const char* path) {
  char abs[PATH_MAX];
  if (!absolute(AT_FDCWD, path, abs)) return;
  AgentScope scope;
  Locked lock;
  add(Kind::Created, abs);
}

}  // namespace ctrl::agent::journal
