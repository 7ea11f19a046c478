// The libc/libpthread functions the agent interposes, resolved once with
// dlsym(RTLD_NEXT) in the agent's constructor. Calls through these pointers
// never come back into the agent.
#pragma once

#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>

namespace ctrl::agent {

struct RealFunctions {
  int (*pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  int (*pthread_join)(pthread_t, void**);
  int (*pthread_detach)(pthread_t);
  void (*pthread_exit)(void*) __attribute__((noreturn));
  int (*pthread_mutex_lock)(pthread_mutex_t*);
  int (*pthread_mutex_trylock)(pthread_mutex_t*);
  int (*pthread_mutex_unlock)(pthread_mutex_t*);
  int (*pthread_mutex_timedlock)(pthread_mutex_t*, const struct timespec*);
  int (*pthread_mutex_clocklock)(pthread_mutex_t*, clockid_t, const struct timespec*);
  int (*pthread_rwlock_timedrdlock)(pthread_rwlock_t*, const struct timespec*);
  int (*pthread_rwlock_timedwrlock)(pthread_rwlock_t*, const struct timespec*);
  int (*pthread_rwlock_clockrdlock)(pthread_rwlock_t*, clockid_t, const struct timespec*);
  int (*pthread_rwlock_clockwrlock)(pthread_rwlock_t*, clockid_t, const struct timespec*);
  int (*pthread_cond_clockwait)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
  int (*sem_timedwait)(sem_t*, const struct timespec*);
  int (*sem_clockwait)(sem_t*, clockid_t, const struct timespec*);
  int (*pthread_rwlock_rdlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_wrlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_tryrdlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_trywrlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_unlock)(pthread_rwlock_t*);
  int (*pthread_cond_wait)(pthread_cond_t*, pthread_mutex_t*);
  int (*pthread_cond_timedwait)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);
  int (*pthread_cond_signal)(pthread_cond_t*);
  int (*pthread_cond_broadcast)(pthread_cond_t*);
  int (*pthread_barrier_init)(pthread_barrier_t*, const pthread_barrierattr_t*, unsigned);
  int (*pthread_barrier_wait)(pthread_barrier_t*);
  int (*sem_init)(sem_t*, int, unsigned);
  int (*sem_wait)(sem_t*);
  int (*sem_trywait)(sem_t*);
  int (*sem_post)(sem_t*);
  int (*sem_getvalue)(sem_t*, int*);
  int (*sched_yield)();
  int (*nanosleep)(const struct timespec*, struct timespec*);
  int (*clock_nanosleep)(clockid_t, int, const struct timespec*, struct timespec*);
  int (*usleep)(useconds_t);
  unsigned (*sleep)(unsigned);
  void (*exit)(int) __attribute__((noreturn));
  void (*_exit)(int) __attribute__((noreturn));
  void (*abort)() __attribute__((noreturn));
  void (*assert_fail)(const char*, const char*, unsigned, const char*) __attribute__((noreturn));
  pid_t (*fork)();
  int (*sigaction)(int, const struct sigaction*, struct sigaction*);
  int (*sigprocmask)(int, const sigset_t*, sigset_t*);
  int (*pthread_sigmask)(int, const sigset_t*, sigset_t*);
  long (*syscall)(long, ...);
  int (*execve)(const char*, char* const[], char* const[]);
  int (*execv)(const char*, char* const[]);
  int (*execvp)(const char*, char* const[]);
  int (*execvpe)(const char*, char* const[], char* const[]);
  int (*libc_start_main)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(), void (*)(),
                         void*);
  // Files and descriptors (FileJournal, AgentDescriptors). renameat2,
  // close_range and closefrom may be null (older glibc).
  int (*open)(const char*, int, ...);
  int (*open64)(const char*, int, ...);
  int (*openat)(int, const char*, int, ...);
  int (*openat64)(int, const char*, int, ...);
  int (*open_2)(const char*, int);
  int (*open64_2)(const char*, int);
  int (*openat_2)(int, const char*, int);
  int (*openat64_2)(int, const char*, int);
  int (*creat)(const char*, mode_t);
  int (*creat64)(const char*, mode_t);
  FILE* (*fopen)(const char*, const char*);
  FILE* (*fopen64)(const char*, const char*);
  FILE* (*freopen)(const char*, const char*, FILE*);
  FILE* (*freopen64)(const char*, const char*, FILE*);
  int (*unlink)(const char*);
  int (*unlinkat)(int, const char*, int);
  int (*remove)(const char*);
  int (*rmdir)(const char*);
  int (*rename)(const char*, const char*);
  int (*renameat)(int, const char*, int, const char*);
  int (*renameat2)(int, const char*, int, const char*, unsigned);
  int (*truncate)(const char*, off_t);
  int (*truncate64)(const char*, off_t);
  int (*mkdir)(const char*, mode_t);
  int (*mkdirat)(int, const char*, mode_t);
  int (*link)(const char*, const char*);
  int (*linkat)(int, const char*, int, const char*, int);
  int (*symlink)(const char*, const char*);
  int (*symlinkat)(const char*, int, const char*);
  int (*mkstemp)(char*);
  int (*mkstemp64)(char*);
  int (*mkostemp)(char*, int);
  int (*mkostemp64)(char*, int);
  int (*mkstemps)(char*, int);
  int (*mkstemps64)(char*, int);
  int (*mkostemps)(char*, int, int);
  int (*mkostemps64)(char*, int, int);
  char* (*mkdtemp)(char*);
  int (*close)(int);
  int (*close_range)(unsigned, unsigned, int);
  void (*closefrom)(int);
  int (*dup)(int);
  int (*dup2)(int, int);
  int (*dup3)(int, int, int);
  int (*fcntl)(int, int, ...);
};

extern RealFunctions real;

// Resolves every pointer; returns the name of the first that is missing.
const char* resolve_real_functions();

// Libraries initialised before the agent (libstdc++, protobuf) may already
// call interposed functions, so every interposer resolves on first use.
extern bool real_resolved;
inline void ensure_real() {
  if (__builtin_expect(!real_resolved, 0)) resolve_real_functions();
}

}  // namespace ctrl::agent
