#include "session/OutputKind.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace ctrl {

std::string output_kind(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "closed";
  if (isatty(fd)) return "terminal";
  if (S_ISREG(st.st_mode)) return "file";
  if (S_ISFIFO(st.st_mode)) return "pipe";
  if (S_ISSOCK(st.st_mode)) return "socket";
  if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3) return "null";
  return "device";
}

std::string describe_output_kind(const std::string& kind) {
  if (kind == "null") return "/dev/null";
  if (kind == "file") return "a regular file";
  if (kind == "closed") return "closed";
  return "a " + kind;
}

}  // namespace ctrl
