// The libc/libpthread functions the agent interposes, resolved once with
// dlsym(RTLD_NEXT) in the agent's constructor. Calls through these pointers
// never come back into the agent.
#pragma once

#include <pthread.h>
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
