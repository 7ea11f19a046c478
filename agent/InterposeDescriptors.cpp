// The program's calls that close, replace or query descriptors, guarded so
// that the agent's own descriptors survive them (policy: AgentDescriptors.h).
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "AgentDescriptors.h"
#include "RealFunctions.h"

using namespace ctrl::agent;

namespace {

int bad_descriptor() {
  errno = EBADF;
  return -1;
}

}  // namespace

extern "C" {

int close(int fd) {
  ensure_real();
  if (agent_descriptor(fd)) return bad_descriptor();
  return real.close(fd);
}

int close_range(unsigned first, unsigned last, int flags) {
  ensure_real();
  return close_range_around_agent(first, last, flags);
}

void closefrom(int lowest) {
  ensure_real();
  if (lowest < 0) lowest = 0;
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
  return real.dup2(old_fd, new_fd);
}

int dup3(int old_fd, int new_fd, int flags) {
  ensure_real();
  if (agent_descriptor(old_fd)) return bad_descriptor();
  if (agent_descriptor(new_fd) && !move_agent_descriptor(new_fd)) {
    errno = EMFILE;
    return -1;
  }
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
  return real.fcntl(fd, cmd, arg);
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

}  // extern "C"
