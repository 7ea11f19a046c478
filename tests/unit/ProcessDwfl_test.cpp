#include "binary/ProcessDwfl.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

namespace {

// This process's descriptors an exec would pass on, ascending. Probed one by
// one up to the descriptor limit rather than read from /proc/self/fd as the
// code under test does: the oracle must not share its way of looking.
std::vector<int> inheritable() {
  std::vector<int> fds;
  long limit = sysconf(_SC_OPEN_MAX);
  for (int fd = 0; fd < limit && fd < 65536; ++fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) fds.push_back(fd);
  }
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
