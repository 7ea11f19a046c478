// posix_spawn, posix_spawnp, system and popen: the new program starts with
// the time-stamp counter readable. libc starts it from a clone of the
// calling thread that inherits the thread's rdtsc trap (VirtualTsc.h), and
// the new image's dynamic loader reads the TSC before any handler exists
// (it was killed by SIGSEGV). libc makes the exec inside, past the agent's
// exec interposers, so the calling thread lets the TSC be read for the call.
// (Its own reads meanwhile, in a signal handler during system()'s wait,
// would be real: none are known.) Each is noted for a runner's
// rollback: the new process shares the descriptors' status flags
// (Rollback.h, kStatusFlags).
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>

#include "Rollback.h"
#include "VirtualTsc.h"

using namespace ctrl::agent;

namespace {

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

struct ReadableTsc {
  ReadableTsc() {
    rollback::note_change(rollback::kStatusFlags);
    virtual_tsc::readable_in_this_thread();
  }
  ~ReadableTsc() { virtual_tsc::trapped_in_this_thread(); }
  ReadableTsc(const ReadableTsc&) = delete;
  ReadableTsc& operator=(const ReadableTsc&) = delete;
};

}  // namespace

extern "C" {

int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions, const posix_spawnattr_t* attr,
                char* const argv[], char* const envp[]) {
  static auto* libc = next<decltype(&posix_spawn)>("posix_spawn");
  ReadableTsc readable;
  return libc(pid, path, actions, attr, argv, envp);
}

int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions, const posix_spawnattr_t* attr,
                 char* const argv[], char* const envp[]) {
  static auto* libc = next<decltype(&posix_spawnp)>("posix_spawnp");
  ReadableTsc readable;
  return libc(pid, file, actions, attr, argv, envp);
}

int system(const char* command) {
  static auto* libc = next<decltype(&system)>("system");
  ReadableTsc readable;
  return libc(command);
}

FILE* popen(const char* command, const char* mode) {
  static auto* libc = next<decltype(&popen)>("popen");
  ReadableTsc readable;
  return libc(command, mode);
}

}  // extern "C"
