// CPU affinity and scheduling policy as the program sees them. A runner
// (Rollback.h) pins itself, and so every thread of its executions, to one
// CPU: the threads run one at a time anyway, and a hand-off between two
// threads on one CPU costs about 2 us against 20 us between CPUs on this
// project's machines. It also makes itself a batch task (SCHED_BATCH). The
// program still sees, and may set, the affinity it had: its own calls are
// answered from the mask saved before pinning and otherwise ignored; a
// batch policy reads as the ordinary one. A long execution unpins its
// threads (spread_threads) and the rollback pins them back.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

#include <cstring>

#include "RawSyscall.h"
#include "Rollback.h"
#include "Runtime.h"

using namespace ctrl::agent;

namespace {

cpu_set_t program_mask;
bool pinned = false;
int pinned_cpu = -1;
bool batch = false;

// Sets the affinity of every thread of the process (/proc/self/task), with
// system calls only: the rollback calls it on its own stack, without a heap.
bool set_every_thread(const cpu_set_t& mask) {
  long dir =
      raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/task"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  alignas(8) char buf[4096];
  for (long n; (n = raw_syscall(SYS_getdents64, dir, reinterpret_cast<long>(buf), sizeof buf)) > 0;) {
    for (long at = 0; at < n;) {
      const auto* d = reinterpret_cast<const dirent64*>(buf + at);
      at += d->d_reclen;
      long tid = 0;
      for (const char* c = d->d_name; *c >= '0' && *c <= '9'; ++c) tid = tid * 10 + (*c - '0');
      // (A thread that ended meanwhile: ESRCH.)
      if (tid > 0) raw_syscall(SYS_sched_setaffinity, tid, sizeof mask, reinterpret_cast<long>(&mask));
    }
  }
  raw_syscall(SYS_close, dir);
  return true;
}

void copy_mask(size_t size, cpu_set_t* out) {
  memset(out, 0, size);
  memcpy(out, &program_mask, size < sizeof program_mask ? size : sizeof program_mask);
}

}  // namespace

namespace ctrl::agent::rollback {

void pin_to_cpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof program_mask, &program_mask) != 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) == 0) {
    pinned = true;
    pinned_cpu = cpu;
  }
  // A woken batch task does not preempt the one that woke it, which goes
  // to sleep at once (a hand-off): one context switch instead of two.
  sched_param none{};
  if (sched_setscheduler(0, SCHED_BATCH, &none) == 0) batch = true;
}

bool spread_threads() {
  if (!pinned || CPU_COUNT(&program_mask) < 2) return false;
  if (!set_every_thread(program_mask)) return false;
  note_spread();
  return true;
}

void gather_threads() {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(pinned_cpu, &one);
  set_every_thread(one);
}

}  // namespace ctrl::agent::rollback

extern "C" {

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* mask) {
  static auto* next = reinterpret_cast<int (*)(pid_t, size_t, cpu_set_t*)>(dlsym(RTLD_NEXT, "sched_getaffinity"));
  if (!pinned || !rt.active || (pid != 0 && pid != getpid())) return next(pid, size, mask);
  copy_mask(size, mask);
  return 0;
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* mask) {
  static auto* next = reinterpret_cast<int (*)(pid_t, size_t, const cpu_set_t*)>(dlsym(RTLD_NEXT, "sched_setaffinity"));
  if (!pinned || !rt.active || (pid != 0 && pid != getpid())) return next(pid, size, mask);
  return 0;
}

int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t* mask) {
  static auto* next =
      reinterpret_cast<int (*)(pthread_t, size_t, cpu_set_t*)>(dlsym(RTLD_NEXT, "pthread_getaffinity_np"));
  if (!pinned || !rt.active) return next(thread, size, mask);
  copy_mask(size, mask);
  return 0;
}

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* mask) {
  static auto* next =
      reinterpret_cast<int (*)(pthread_t, size_t, const cpu_set_t*)>(dlsym(RTLD_NEXT, "pthread_setaffinity_np"));
  if (!pinned || !rt.active) return next(thread, size, mask);
  return 0;
}

int sched_getscheduler(pid_t pid) {
  static auto* next = reinterpret_cast<int (*)(pid_t)>(dlsym(RTLD_NEXT, "sched_getscheduler"));
  int policy = next(pid);
  return batch && policy == SCHED_BATCH ? SCHED_OTHER : policy;
}

int pthread_getschedparam(pthread_t thread, int* policy, sched_param* param) {
  static auto* next =
      reinterpret_cast<int (*)(pthread_t, int*, sched_param*)>(dlsym(RTLD_NEXT, "pthread_getschedparam"));
  int r = next(thread, policy, param);
  if (r == 0 && batch && *policy == SCHED_BATCH) *policy = SCHED_OTHER;
  return r;
}

}  // extern "C"
