// Virtual thread ids (VirtualThreadIds.h).
#include "VirtualThreadIds.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "OwnPid.h"
#include "RawSyscall.h"
#include "Runtime.h"

using namespace ctrl;
using namespace ctrl::agent;

namespace ctrl::agent::virtual_thread_ids {

bool own(pid_t* tid) {
  uint32_t me = t_me;
  if (!rt.enabled || me == kNoThread || me >= shm::kMaxThreads) return false;
  *tid = me == 0 ? own_pid() : kVirtualTidBase + pid_t(me);
  return true;
}

pid_t to_real(pid_t tid) {
  if (!rt.enabled || tid <= kVirtualTidBase || tid >= kVirtualTidBase + pid_t(shm::kMaxThreads)) return tid;
  int32_t real = rt.region.header->threads[tid - kVirtualTidBase].tid;
  return real > 0 ? real : tid;
}

}  // namespace ctrl::agent::virtual_thread_ids

extern "C" pid_t gettid() {
  pid_t tid;
  if (virtual_thread_ids::own(&tid)) return tid;
  return pid_t(raw_syscall(SYS_gettid));
}
