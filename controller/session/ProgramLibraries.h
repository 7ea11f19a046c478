// The shared libraries the dynamic loader would load for a program, as the
// loader itself resolves them (its --list mode: DT_NEEDED, RPATH/RUNPATH,
// LD_LIBRARY_PATH, the system directories), without running the program.
#pragma once

#include <string>
#include <vector>

namespace ctrl {

// Absolute paths in load order; empty for a static program or when the
// loader cannot be asked (the program then simply gets no library sites).
// Throws TargetLost when the loader was killed by a signal part-way (from
// outside ctrl): a shorter list would silently watch fewer sites. The
// loader is asked once per program in a run of ctrl (then remembered).
std::vector<std::string> program_libraries(const std::string& program);

// Whether `path` is part of the C library itself (libc, the dynamic loader,
// libpthread, libm ...): its system calls implement what the agent already
// interposes at the function level.
bool is_c_library(const std::string& path);

// Whether `path` is a sanitizer's runtime (ASan, TSan, HWASan, LSan, MSan;
// GCC's and clang's): it must be the first library of the process (it checks
// that it is), so it is preloaded before the agent. Its system calls are its
// own (LeakSanitizer's check at exit runs a thread it clones itself with
// every signal blocked, which a trap at a system call site would kill): no
// sites in it.
bool is_sanitizer_runtime(const std::string& path);

}  // namespace ctrl
