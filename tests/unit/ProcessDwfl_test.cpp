#include "binary/ProcessDwfl.h"

#include <dirent.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace {

// This process's descriptors an exec would pass on, ascending.
std::vector<int> inheritable() {
  std::vector<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return fds;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    int fd = std::atoi(e->d_name);
    if (fd == dirfd(dir)) continue;
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) fds.push_back(fd);
  }
  closedir(dir);
  std::sort(fds.begin(), fds.end());
  return fds;
}

// Every module's file and debug information, as the symbolizer asks for them.
int load(Dwfl_Module* mod, void**, const char*, Dwarf_Addr, void*) {
  Dwarf_Addr bias = 0;
  dwfl_module_getelf(mod, &bias);
  dwfl_module_getdwarf(mod, &bias);
  return DWARF_CB_OK;
}

}  // namespace

// What libdw keeps open for a process's modules (their files, debuginfod's
// socket pair) must not reach a program ctrl launches later: a -j helper
// session's program inherited them, and its agent saved and restored every
// one of those files at every execution (issue 28, session 18).
TEST(ProcessDwfl, LeavesNothingAnExecWouldPassOn) {
  std::vector<int> before = inheritable();
  Dwfl* dwfl = ctrl::begin_process_dwfl(getpid());
  ASSERT_EQ(dwfl_getmodules(dwfl, load, nullptr, 0), 0);
  std::vector<int> after = inheritable();
  dwfl_end(dwfl);
  EXPECT_EQ(after, before);
}
