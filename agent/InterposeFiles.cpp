// The program's calls that change the file system by path: each is
// recorded in the file journal just before it runs (FileJournal.h), so the
// next execution can undo it. libc's fopen, freopen, remove, mkfifo and the
// mkstemp family reach the kernel without going through the interposable
// open/unlink, so they are interposed themselves.
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "FileJournal.h"
#include "RealFunctions.h"
#include "Rollback.h"

using namespace ctrl::agent;

namespace {

bool takes_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#define OPEN_MODE(flags)       \
  mode_t mode = 0;             \
  if (takes_mode(flags)) {     \
    va_list ap;                \
    va_start(ap, flags);       \
    mode = va_arg(ap, mode_t); \
    va_end(ap);                \
  }                            \
  ensure_real();

// open(2) flags of an fopen mode string.
int fopen_flags(const char* mode) {
  if (!mode) return O_RDONLY;
  int flags = 0;
  switch (mode[0]) {
    case 'w':
      flags = O_WRONLY | O_CREAT | O_TRUNC;
      break;
    case 'a':
      flags = O_WRONLY | O_CREAT | O_APPEND;
      break;
    default:
      flags = O_RDONLY;
  }
  for (const char* c = mode + 1; *c && *c != ','; ++c) {
    if (*c == '+') flags = (flags & ~O_ACCMODE) | O_RDWR;
    if (*c == 'x') flags |= O_EXCL;
  }
  return flags;
}

void note_open(int dirfd, const char* path, int flags) {
  if (journal::recording()) journal::before_open(dirfd, path, flags);
}

void note_remove(int dirfd, const char* path) {
  if (journal::recording()) journal::before_remove(dirfd, path);
}

void note_create(int dirfd, const char* path) {
  if (journal::recording()) journal::before_create(dirfd, path);
}

int note_made(int fd, const char* path) {
  if (fd >= 0 && journal::recording()) journal::created(path);
  return fd;
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  OPEN_MODE(flags)
  note_open(AT_FDCWD, path, flags);
  return real.open(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  OPEN_MODE(flags)
  note_open(AT_FDCWD, path, flags);
  return real.open64(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  OPEN_MODE(flags)
  note_open(dirfd, path, flags);
  return real.openat(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  OPEN_MODE(flags)
  note_open(dirfd, path, flags);
  return real.openat64(dirfd, path, flags, mode);
}

// _FORTIFY_SOURCE's checked variants (no mode: O_CREAT is refused there).
int __open_2(const char* path, int flags) {
  ensure_real();
  note_open(AT_FDCWD, path, flags);
  return real.open_2(path, flags);
}

int __open64_2(const char* path, int flags) {
  ensure_real();
  note_open(AT_FDCWD, path, flags);
  return real.open64_2(path, flags);
}

int __openat_2(int dirfd, const char* path, int flags) {
  ensure_real();
  note_open(dirfd, path, flags);
  return real.openat_2(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char* path, int flags) {
  ensure_real();
  note_open(dirfd, path, flags);
  return real.openat64_2(dirfd, path, flags);
}

int creat(const char* path, mode_t mode) {
  ensure_real();
  note_open(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC);
  return real.creat(path, mode);
}

int creat64(const char* path, mode_t mode) {
  ensure_real();
  note_open(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC);
  return real.creat64(path, mode);
}

FILE* fopen(const char* path, const char* mode) {
  ensure_real();
  note_open(AT_FDCWD, path, fopen_flags(mode));
  return real.fopen(path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
  ensure_real();
  note_open(AT_FDCWD, path, fopen_flags(mode));
  return real.fopen64(path, mode);
}

FILE* freopen(const char* path, const char* mode, FILE* stream) {
  ensure_real();
  if (path) note_open(AT_FDCWD, path, fopen_flags(mode));
  if (stream) rollback::note_descriptor(fileno(stream));  // (Rollback.h)
  return real.freopen(path, mode, stream);
}

FILE* freopen64(const char* path, const char* mode, FILE* stream) {
  ensure_real();
  if (path) note_open(AT_FDCWD, path, fopen_flags(mode));
  if (stream) rollback::note_descriptor(fileno(stream));  // (Rollback.h)
  return real.freopen64(path, mode, stream);
}

int truncate(const char* path, off_t length) {
  ensure_real();
  if (journal::recording()) journal::before_truncate(path);
  return real.truncate(path, length);
}

int truncate64(const char* path, off_t length) {
  ensure_real();
  if (journal::recording()) journal::before_truncate(path);
  return real.truncate64(path, length);
}

int unlink(const char* path) {
  ensure_real();
  note_remove(AT_FDCWD, path);
  return real.unlink(path);
}

int unlinkat(int dirfd, const char* path, int flags) {
  ensure_real();
  note_remove(dirfd, path);
  return real.unlinkat(dirfd, path, flags);
}

int rmdir(const char* path) {
  ensure_real();
  note_remove(AT_FDCWD, path);
  return real.rmdir(path);
}

int remove(const char* path) {
  ensure_real();
  note_remove(AT_FDCWD, path);
  return real.remove(path);
}

int rename(const char* from, const char* to) {
  ensure_real();
  if (journal::recording()) journal::before_rename(AT_FDCWD, from, AT_FDCWD, to, 0);
  return real.rename(from, to);
}

int renameat(int from_dir, const char* from, int to_dir, const char* to) {
  ensure_real();
  if (journal::recording()) journal::before_rename(from_dir, from, to_dir, to, 0);
  return real.renameat(from_dir, from, to_dir, to);
}

int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) {
  ensure_real();
  if (journal::recording()) journal::before_rename(from_dir, from, to_dir, to, flags);
  if (real.renameat2) return real.renameat2(from_dir, from, to_dir, to, flags);
  return int(real.syscall(SYS_renameat2, from_dir, from, to_dir, to, flags));
}

int mkdir(const char* path, mode_t mode) {
  ensure_real();
  note_create(AT_FDCWD, path);
  return real.mkdir(path, mode);
}

int mkdirat(int dirfd, const char* path, mode_t mode) {
  ensure_real();
  note_create(dirfd, path);
  return real.mkdirat(dirfd, path, mode);
}

int link(const char* from, const char* to) {
  ensure_real();
  note_create(AT_FDCWD, to);
  return real.link(from, to);
}

int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  ensure_real();
  note_create(to_dir, to);
  return real.linkat(from_dir, from, to_dir, to, flags);
}

int symlink(const char* target, const char* path) {
  ensure_real();
  note_create(AT_FDCWD, path);
  return real.symlink(target, path);
}

int symlinkat(const char* target, int dirfd, const char* path) {
  ensure_real();
  note_create(dirfd, path);
  return real.symlinkat(target, dirfd, path);
}

int mkstemp(char* tmpl) {
  ensure_real();
  return note_made(real.mkstemp(tmpl), tmpl);
}

int mkstemp64(char* tmpl) {
  ensure_real();
  return note_made(real.mkstemp64(tmpl), tmpl);
}

int mkostemp(char* tmpl, int flags) {
  ensure_real();
  return note_made(real.mkostemp(tmpl, flags), tmpl);
}

int mkostemp64(char* tmpl, int flags) {
  ensure_real();
  return note_made(real.mkostemp64(tmpl, flags), tmpl);
}

int mkstemps(char* tmpl, int suffix) {
  ensure_real();
  return note_made(real.mkstemps(tmpl, suffix), tmpl);
}

int mkstemps64(char* tmpl, int suffix) {
  ensure_real();
  return note_made(real.mkstemps64(tmpl, suffix), tmpl);
}

int mkostemps(char* tmpl, int suffix, int flags) {
  ensure_real();
  return note_made(real.mkostemps(tmpl, suffix, flags), tmpl);
}

int mkostemps64(char* tmpl, int suffix, int flags) {
  ensure_real();
  return note_made(real.mkostemps64(tmpl, suffix, flags), tmpl);
}

char* mkdtemp(char* tmpl) {
  ensure_real();
  char* made = real.mkdtemp(tmpl);
  if (made) note_made(0, made);
  return made;
}

}  // extern "C"
