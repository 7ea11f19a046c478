#include "binary/ProcessDwfl.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

// Null means the default search path (/usr/lib/debug, build ids, ...).
char* g_debuginfo_path = nullptr;

// ctrl's descriptors an exec would pass on (not close-on-exec), ascending.
std::vector<int> inheritable_descriptors() {
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

// libdw opens the modules' files (and, through debuginfod, a socket pair)
// without O_CLOEXEC and keeps them for the Dwfl's life. A program ctrl
// launches afterwards (a -j helper session's, started once the first
// execution's race check had symbolized) inherited them, and its agent
// saved and restored each regular file at every execution (fstat, fcntl,
// lseek: about 25 system calls more per execution of queue2, issue 28,
// session 18). So whatever a lookup left open is made close-on-exec; the
// lookups run once per module, so the scans cost nothing per execution.
template <class F>
auto without_leaks(F&& lookup) {
  std::vector<int> before = inheritable_descriptors();
  auto r = lookup();
  for (int fd : inheritable_descriptors())
    if (!std::binary_search(before.begin(), before.end(), fd)) fcntl(fd, F_SETFD, FD_CLOEXEC);
  return r;
}

int find_elf(Dwfl_Module* mod, void** userdata, const char* name, Dwarf_Addr base, char** file_name, Elf** elf) {
  return without_leaks([&] { return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elf); });
}

int find_debuginfo(Dwfl_Module* mod, void** userdata, const char* name, Dwarf_Addr base, const char* file_name,
                   const char* debuglink, GElf_Word crc, char** debuginfo_name) {
  return without_leaks([&] {
    return dwfl_standard_find_debuginfo(mod, userdata, name, base, file_name, debuglink, crc, debuginfo_name);
  });
}

const Dwfl_Callbacks kCallbacks = {
    .find_elf = find_elf,
    .find_debuginfo = find_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = &g_debuginfo_path,
};

}  // namespace

Dwfl* begin_process_dwfl(pid_t pid) {
  Dwfl* dwfl = dwfl_begin(&kCallbacks);
  if (!dwfl) throw InternalError(fmt::format("libdw: {}", dwfl_errmsg(-1)));
  dwfl_report_begin(dwfl);
  dwfl_linux_proc_report(dwfl, pid);
  dwfl_report_end(dwfl, nullptr, nullptr);
  return dwfl;
}

}  // namespace ctrl
