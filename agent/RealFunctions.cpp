#include "RealFunctions.h"

#include <dlfcn.h>

namespace ctrl::agent {

RealFunctions real;
bool real_resolved = false;

namespace {
template <class F>
bool resolve(F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  return slot != nullptr;
}
}  // namespace

const char* resolve_real_functions() {
#define CTRL_RESOLVE(field, name) \
  if (!resolve(real.field, name)) return name;
  CTRL_RESOLVE(pthread_create, "pthread_create")
  CTRL_RESOLVE(pthread_join, "pthread_join")
  CTRL_RESOLVE(pthread_detach, "pthread_detach")
  CTRL_RESOLVE(pthread_exit, "pthread_exit")
  CTRL_RESOLVE(pthread_mutex_lock, "pthread_mutex_lock")
  CTRL_RESOLVE(pthread_mutex_trylock, "pthread_mutex_trylock")
  CTRL_RESOLVE(pthread_mutex_unlock, "pthread_mutex_unlock")
  CTRL_RESOLVE(pthread_mutex_timedlock, "pthread_mutex_timedlock")
  CTRL_RESOLVE(pthread_mutex_clocklock, "pthread_mutex_clocklock")
  CTRL_RESOLVE(pthread_rwlock_timedrdlock, "pthread_rwlock_timedrdlock")
  CTRL_RESOLVE(pthread_rwlock_timedwrlock, "pthread_rwlock_timedwrlock")
  CTRL_RESOLVE(pthread_rwlock_clockrdlock, "pthread_rwlock_clockrdlock")
  CTRL_RESOLVE(pthread_rwlock_clockwrlock, "pthread_rwlock_clockwrlock")
  CTRL_RESOLVE(pthread_cond_clockwait, "pthread_cond_clockwait")
  CTRL_RESOLVE(sem_timedwait, "sem_timedwait")
  CTRL_RESOLVE(sem_clockwait, "sem_clockwait")
  CTRL_RESOLVE(pthread_rwlock_rdlock, "pthread_rwlock_rdlock")
  CTRL_RESOLVE(pthread_rwlock_wrlock, "pthread_rwlock_wrlock")
  CTRL_RESOLVE(pthread_rwlock_tryrdlock, "pthread_rwlock_tryrdlock")
  CTRL_RESOLVE(pthread_rwlock_trywrlock, "pthread_rwlock_trywrlock")
  CTRL_RESOLVE(pthread_rwlock_unlock, "pthread_rwlock_unlock")
  CTRL_RESOLVE(pthread_cond_wait, "pthread_cond_wait")
  CTRL_RESOLVE(pthread_cond_timedwait, "pthread_cond_timedwait")
  CTRL_RESOLVE(pthread_cond_signal, "pthread_cond_signal")
  CTRL_RESOLVE(pthread_cond_broadcast, "pthread_cond_broadcast")
  CTRL_RESOLVE(pthread_barrier_init, "pthread_barrier_init")
  CTRL_RESOLVE(pthread_barrier_wait, "pthread_barrier_wait")
  CTRL_RESOLVE(sem_init, "sem_init")
  CTRL_RESOLVE(sem_wait, "sem_wait")
  CTRL_RESOLVE(sem_trywait, "sem_trywait")
  CTRL_RESOLVE(sem_post, "sem_post")
  CTRL_RESOLVE(sem_getvalue, "sem_getvalue")
  CTRL_RESOLVE(sched_yield, "sched_yield")
  CTRL_RESOLVE(nanosleep, "nanosleep")
  CTRL_RESOLVE(clock_nanosleep, "clock_nanosleep")
  CTRL_RESOLVE(usleep, "usleep")
  CTRL_RESOLVE(sleep, "sleep")
  CTRL_RESOLVE(exit, "exit")
  CTRL_RESOLVE(_exit, "_exit")
  CTRL_RESOLVE(abort, "abort")
  CTRL_RESOLVE(assert_fail, "__assert_fail")
  CTRL_RESOLVE(fork, "fork")
  CTRL_RESOLVE(sigaction, "sigaction")
  CTRL_RESOLVE(sigprocmask, "sigprocmask")
  CTRL_RESOLVE(syscall, "syscall")
  CTRL_RESOLVE(pthread_sigmask, "pthread_sigmask")
  CTRL_RESOLVE(execve, "execve")
  CTRL_RESOLVE(execv, "execv")
  CTRL_RESOLVE(execvp, "execvp")
  CTRL_RESOLVE(execvpe, "execvpe")
  CTRL_RESOLVE(libc_start_main, "__libc_start_main")
  CTRL_RESOLVE(open, "open")
  CTRL_RESOLVE(open64, "open64")
  CTRL_RESOLVE(openat, "openat")
  CTRL_RESOLVE(openat64, "openat64")
  CTRL_RESOLVE(open_2, "__open_2")
  CTRL_RESOLVE(open64_2, "__open64_2")
  CTRL_RESOLVE(openat_2, "__openat_2")
  CTRL_RESOLVE(openat64_2, "__openat64_2")
  CTRL_RESOLVE(creat, "creat")
  CTRL_RESOLVE(creat64, "creat64")
  CTRL_RESOLVE(fopen, "fopen")
  CTRL_RESOLVE(fopen64, "fopen64")
  CTRL_RESOLVE(freopen, "freopen")
  CTRL_RESOLVE(freopen64, "freopen64")
  CTRL_RESOLVE(unlink, "unlink")
  CTRL_RESOLVE(unlinkat, "unlinkat")
  CTRL_RESOLVE(remove, "remove")
  CTRL_RESOLVE(rmdir, "rmdir")
  CTRL_RESOLVE(rename, "rename")
  CTRL_RESOLVE(renameat, "renameat")
  CTRL_RESOLVE(truncate, "truncate")
  CTRL_RESOLVE(truncate64, "truncate64")
  CTRL_RESOLVE(mkdir, "mkdir")
  CTRL_RESOLVE(mkdirat, "mkdirat")
  CTRL_RESOLVE(link, "link")
  CTRL_RESOLVE(linkat, "linkat")
  CTRL_RESOLVE(symlink, "symlink")
  CTRL_RESOLVE(symlinkat, "symlinkat")
  CTRL_RESOLVE(mkstemp, "mkstemp")
  CTRL_RESOLVE(mkstemp64, "mkstemp64")
  CTRL_RESOLVE(mkostemp, "mkostemp")
  CTRL_RESOLVE(mkostemp64, "mkostemp64")
  CTRL_RESOLVE(mkstemps, "mkstemps")
  CTRL_RESOLVE(mkstemps64, "mkstemps64")
  CTRL_RESOLVE(mkostemps, "mkostemps")
  CTRL_RESOLVE(mkostemps64, "mkostemps64")
  CTRL_RESOLVE(mkdtemp, "mkdtemp")
  CTRL_RESOLVE(close, "close")
  CTRL_RESOLVE(dup, "dup")
  CTRL_RESOLVE(dup2, "dup2")
  CTRL_RESOLVE(dup3, "dup3")
  CTRL_RESOLVE(fcntl, "fcntl")
#undef CTRL_RESOLVE
  // Newer than some glibc versions ctrl runs with (2.28, 2.34): optional,
  // their interposers fall back on the system call.
  resolve(real.renameat2, "renameat2");
  resolve(real.close_range, "close_range");
  resolve(real.closefrom, "closefrom");
  real_resolved = true;
  return nullptr;
}

}  // namespace ctrl::agent
