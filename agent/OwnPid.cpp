#include "OwnPid.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include "RawSyscall.h"

namespace ctrl::agent {

namespace {
volatile pid_t* cache = nullptr;
}  // namespace

void own_pid_init() {
  if (cache) return;
  long p = raw_syscall(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p < 0 && p > -4096) return;
  if (raw_syscall(SYS_madvise, p, 4096, MADV_WIPEONFORK) != 0) {
    raw_syscall(SYS_munmap, p, 4096);
    return;
  }
  cache = reinterpret_cast<volatile pid_t*>(p);
}

pid_t own_pid() {
  if (!cache) return pid_t(raw_syscall(SYS_getpid));
  pid_t pid = *cache;
  if (pid == 0) *cache = pid = pid_t(raw_syscall(SYS_getpid));
  return pid;
}

}  // namespace ctrl::agent
