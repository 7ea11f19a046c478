// The shared libraries a paused program has loaded, as its dynamic linker
// lists them (the link_map chain of r_debug, found through the
// executable's DT_DEBUG), without ctrl's agent: libctrl-agent.so, which
// ctrl preloads, and the libraries that only the agent needs (for a C
// program: libstdc++, libm, libgcc_s, protobuf). gdb is given this list
// (qXfer:libraries-svr4) instead of walking the chain itself, so that it
// neither loads nor shows what the program did not load.
//
// Invariants:
//  - A library stays listed when the program needs it: the executable's
//    DT_NEEDED closure, and that of every library outside the agent's own
//    closure (loaded by dlopen, say). Needs are read from the files'
//    dynamic sections and matched by file name or DT_SONAME.
//  - The order is the dynamic linker's; the main program's link_map is
//    main_lm and is not among `libraries`.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ctrl {

struct LoadedLibrary {
  std::string name;  // l_name: the path it was loaded from
  uint64_t lm = 0;   // its struct link_map
  uint64_t l_addr = 0, l_ld = 0;
};

struct LibraryList {
  uint64_t main_lm = 0;
  std::vector<LoadedLibrary> libraries;
};

// Reads [addr, addr + size) of the paused program.
using ProgramMemoryRead = std::function<bool(uint64_t addr, void* buffer, size_t size)>;

// nullopt when the chain cannot be read: no process, a static executable,
// or the dynamic linker has not yet published it. `auxv` is the process's
// auxiliary vector (/proc/PID/auxv).
std::optional<LibraryList> program_libraries(const std::string& auxv, const ProgramMemoryRead& read);

// Whether a library path names ctrl's agent.
bool is_agent_library(const std::string& path);

}  // namespace ctrl
