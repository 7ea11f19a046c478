// The program's calls that close, replace or query descriptors, guarded so
// that the agent's own descriptors survive them (policy: AgentDescriptors.h),
// and noted for a runner's rollback (Rollback.h, kDescriptors), with libc's
// functions that close or replace a descriptor the program gives them
// without going through these.
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "AgentDescriptors.h"
#include "RealFunctions.h"
#include "Rollback.h"

using namespace ctrl::agent;

namespace {

int bad_descriptor() {
  errno = EBADF;
  return -1;
}

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

int close(int fd) {
  ensure_real();
  if (agent_descriptor(fd)) return bad_descriptor();
  rollback::note_descriptor(fd);
  return real.close(fd);
}

int close_range(unsigned first, unsigned last, int flags) {
  ensure_real();
  rollback::note_change(rollback::kDescriptors);
  return close_range_around_agent(first, last, flags);
}

void closefrom(int lowest) {
  ensure_real();
  if (lowest < 0) lowest = 0;
  rollback::note_change(rollback::kDescriptors);
  if (close_range_around_agent(unsigned(lowest), ~0U, 0) == 0) return;
  // As libc's closefrom on a kernel without close_range: one by one.
  for (int fd = lowest, n = int(sysconf(_SC_OPEN_MAX)); fd < n; ++fd) close(fd);
}

int dup(int fd) {
  ensure_real();
  if (agent_descriptor(fd)) return bad_descriptor();
  return real.dup(fd);
}

int dup2(int old_fd, int new_fd) {
  ensure_real();
  if (agent_descriptor(old_fd)) return bad_descriptor();
  if (agent_descriptor(new_fd) && !move_agent_descriptor(new_fd)) {
    errno = EMFILE;
    return -1;
  }
  rollback::note_descriptor(new_fd);
  return real.dup2(old_fd, new_fd);
}

int dup3(int old_fd, int new_fd, int flags) {
  ensure_real();
  if (agent_descriptor(old_fd)) return bad_descriptor();
  if (agent_descriptor(new_fd) && !move_agent_descriptor(new_fd)) {
    errno = EMFILE;
    return -1;
  }
  rollback::note_descriptor(new_fd);
  return real.dup3(old_fd, new_fd, flags);
}

// Every fcntl command takes at most one argument, an int or a pointer.
int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  ensure_real();
  if (agent_descriptor(fd)) return bad_descriptor();
  if (cmd == F_SETFL) rollback::note_change(rollback::kStatusFlags);
  return real.fcntl(fd, cmd, arg);
}

// Every ioctl request takes at most one argument. FIONBIO and FIOASYNC set
// status flags.
int ioctl(int fd, unsigned long request, ...) {
  static auto* libc = next<int (*)(int, unsigned long, ...)>("ioctl");
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (request == FIONBIO || request == FIOASYNC) rollback::note_change(rollback::kStatusFlags);
  return libc(fd, request, arg);
}

// libc's fdopen sets O_APPEND itself for mode "a" (past fcntl).
FILE* fdopen(int fd, const char* mode) {
  static auto* libc = next<decltype(&fdopen)>("fdopen");
  rollback::note_change(rollback::kStatusFlags);
  return libc(fd, mode);
}

// The same entry point under its large-file name: fcntl's argument is never
// an offset on x86-64.
int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl(fd, cmd, arg);
}

// libc closes the stream's descriptor (or, freopen, replaces it) itself.
int fclose(FILE* stream) {
  static auto* libc = next<decltype(&fclose)>("fclose");
  if (stream) rollback::note_descriptor(fileno(stream));
  return libc(stream);
}

int fcloseall() {
  static auto* libc = next<int (*)()>("fcloseall");
  rollback::note_change(rollback::kDescriptors);
  return libc();
}

int closedir(DIR* dir) {
  static auto* libc = next<decltype(&closedir)>("closedir");
  // (Declared nonnull, yet libc answers a null one with EINVAL.)
  DIR* d = dir;
  __asm__("" : "+r"(d));
  if (d) rollback::note_descriptor(dirfd(d));
  return libc(dir);
}

// dup2 onto 0, 1 and 2 inside libc.
int login_tty(int fd) {
  static auto* libc = next<int (*)(int)>("login_tty");
  rollback::note_change(rollback::kDescriptors);
  return libc(fd);
}

}  // extern "C"
