#include "FileState.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "AgentDescriptors.h"
#include "DirectoryEntries.h"
#include "FileJournal.h"
#include "Notice.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"

namespace ctrl::agent::file_state {

namespace {

constexpr int kMaxSaved = 1024;
constexpr uint64_t kCopyLimit = uint64_t(256) << 20;

struct Saved {
  int fd;
  bool written;  // a regular file open for writing
  bool copied;   // `copy` holds its contents
  off_t offset;  // -1: not seekable
  off_t size;
  struct timespec times[2];
  const char* copy;
  uint64_t dev, ino;
};

// Private to the fork server; executions read their inherited copy.
Saved* saved = nullptr;
int nsaved = 0;

// The status flags (F_GETFL) of every descriptor, whatever it is open on:
// they belong to the open file description, which executions share with
// the fork server, so an execution's fcntl(F_SETFL) outlived it. xz sets
// O_NONBLOCK on a pipe it writes to and clears it at its end: the next
// execution started with the flag cleared, its writes became probed
// waits, and it diverged from its own plan.
struct StatusFlags {
  int fd;
  int flags;
};
StatusFlags* status = nullptr;
int nstatus = 0;

void* map(uint64_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// The copies live away from where the kernel places mappings (top-down
// below the libraries): there, their sizes would move every later mapping,
// the recycled threads' stacks included, and the size of a file a program
// inherits open for writing (a test harness's log, still growing) is not
// the same in a run and in its replay, which then diverged on the address
// of a variable on a thread's stack.
constexpr uint64_t kAsideBase = uint64_t(0x6000) << 32;
uint64_t aside_next = kAsideBase;

void* map_aside(uint64_t size) {
  uint64_t len = (size + 4095) & ~uint64_t(4095);
  for (int tries = 0; tries < 64; ++tries) {
    void* want = reinterpret_cast<void*>(aside_next);
    void* p = mmap(want, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want) {
      aside_next += len;
      return p;
    }
    if (p != MAP_FAILED) {  // a kernel that took the address as a hint
      munmap(p, len);
      return nullptr;
    }
    if (errno != EEXIST) return nullptr;
    aside_next += uint64_t(1) << 32;  // taken: 4 GiB further
  }
  return nullptr;
}

bool read_all_at(int fd, char* out, uint64_t size) {
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, out + done, size - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += uint64_t(n);
  }
  return true;
}

void record(int fd, uint64_t& copied_bytes) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return;
  if (nsaved >= kMaxSaved) return;
  int flags = real.fcntl(fd, F_GETFL);
  Saved& s = saved[nsaved++];
  s = Saved{};
  s.fd = fd;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.offset = lseek(fd, 0, SEEK_CUR);
  s.written = S_ISREG(st.st_mode) && flags >= 0 && (flags & O_ACCMODE) != O_RDONLY;
  if (!s.written) return;
  // (Not stdout and stderr: with --show-output they are ctrl's own.)
  if (rt.region.header && fd > 2) ++rt.region.header->files_written_at_checkpoint;
  s.size = st.st_size;
  s.times[0] = st.st_atim;
  s.times[1] = st.st_mtim;
  if ((flags & O_APPEND) && (flags & O_ACCMODE) == O_WRONLY) return;  // executions can only extend it
  // The same file through another descriptor: one copy serves both.
  for (int i = 0; i < nsaved - 1; ++i) {
    struct stat other;
    if (saved[i].copied && fstat(saved[i].fd, &other) == 0 && other.st_dev == st.st_dev && other.st_ino == st.st_ino) {
      s.copy = saved[i].copy;
      s.copied = true;
      return;
    }
  }
  uint64_t size = uint64_t(st.st_size);
  char* copy = size == 0 ? nullptr : static_cast<char*>(copied_bytes + size <= kCopyLimit ? map_aside(size) : nullptr);
  char link[40];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  // A write-only descriptor cannot be read: the same file, opened again.
  int reader = (flags & O_ACCMODE) == O_WRONLY ? real.open(link, O_RDONLY | O_CLOEXEC | O_NOCTTY) : fd;
  bool read_ok = copy && reader >= 0 && read_all_at(reader, copy, size);
  if (reader >= 0 && reader != fd) real.close(reader);
  if (size == 0 || read_ok) {
    s.copy = copy;
    s.copied = true;
    copied_bytes += size;
    return;
  }
  char path[PATH_MAX] = "?", text[PATH_MAX + 300];
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n > 0) path[n] = 0;
  snprintf(text, sizeof text,
           "%s (descriptor %d) is open for writing at the checkpoint and %s: each execution gets back its size, "
           "not what earlier executions wrote over its first %lld bytes",
           path, fd, copy ? "cannot be read" : "too large to keep a copy of (256 MiB)", (long long)size);
  send_notice(text);
}

}  // namespace

void checkpoint() {
  saved = static_cast<Saved*>(map(sizeof(Saved) * kMaxSaved));
  status = static_cast<StatusFlags*>(map(sizeof(StatusFlags) * kMaxSaved));
  if (!saved || !status) return;
  int dir = real.open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  uint64_t copied_bytes = 0;
  for_each_entry(dir, [&](const char* entry) {
    char* end = nullptr;
    long fd = strtol(entry, &end, 10);
    if (end == entry || *end || fd == dir || holds_descriptor(int(fd))) return;
    record(int(fd), copied_bytes);
    int flags = real.fcntl(int(fd), F_GETFL);
    if (flags >= 0 && nstatus < kMaxSaved) status[nstatus++] = StatusFlags{int(fd), flags};
  });
  real.close(dir);
  journal::create();
}

bool held_at_checkpoint(uint64_t dev, uint64_t ino) {
  for (int i = 0; i < nsaved; ++i)
    if (saved[i].dev == dev && saved[i].ino == ino) return true;
  return false;
}

namespace {

// `at_end`: the session is over. With --show-output the program's stdout
// and stderr are ctrl's own, which has written its report there since: they
// are left alone then.
void restore_descriptors(bool at_end) {
  bool ctrl_output = at_end && rt.region.header && rt.region.header->target_output;
  for (int i = 0; i < nsaved; ++i) {
    const Saved& s = saved[i];
    if (ctrl_output && (s.fd == 1 || s.fd == 2)) continue;
    if (s.written) {
      struct stat st;
      if (fstat(s.fd, &st) == 0 && (st.st_size != s.size || st.st_mtim.tv_sec != s.times[1].tv_sec ||
                                    st.st_mtim.tv_nsec != s.times[1].tv_nsec)) {
        if (ftruncate(s.fd, s.size) == 0 && s.copied) {
          for (off_t done = 0; done < s.size;) {
            ssize_t n = pwrite(s.fd, s.copy + done, size_t(s.size - done), done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += n;
          }
        }
        futimens(s.fd, s.times);
      }
    }
    if (s.offset >= 0) lseek(s.fd, s.offset, SEEK_SET);
  }
  // F_SETFL changes only O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME and
  // O_NONBLOCK: the rest of the recorded flags is ignored. (A system call
  // per descriptor: only when something may have changed them.)
  if (!at_end && !rollback::take_status_flags_change()) return;
  for (int i = 0; i < nstatus; ++i) {
    int now = real.fcntl(status[i].fd, F_GETFL);
    if (now >= 0 && now != status[i].flags) real.fcntl(status[i].fd, F_SETFL, status[i].flags);
  }
}

}  // namespace

void start_execution() {
  journal::undo_and_record();
  restore_descriptors(false);
}

void restore_at_end() {
  journal::undo();
  restore_descriptors(true);
}

}  // namespace ctrl::agent::file_state
