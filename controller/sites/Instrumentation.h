// Which instructions of the target become visible operations: the sites of
// the program (and of libraries named with --instrument), decoded from the
// files before the target starts, filtered by the visibility policy, and
// written into a memfd the agent maps (protocol/SiteTable.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ctrl {

struct InstrumentationOptions {
  // "all": synchronisation calls, atomic instructions and every non-stack
  // memory access of instrumented code; "atomics": calls and
  // locked/xchg/fence sites only.
  std::string visible = "all";
  std::vector<std::string> libraries;  // --instrument
};

class Instrumentation {
 public:
  // Throws UsageError for an unknown policy or a library that cannot be found
  // or decoded.
  Instrumentation(const std::string& program, const InstrumentationOptions& options);
  ~Instrumentation();
  Instrumentation(const Instrumentation&) = delete;
  Instrumentation& operator=(const Instrumentation&) = delete;

  int fd() const { return fd_; }
  uint64_t site_count() const { return count_; }
  // "412 sites in prog, 37 in libfoo.so (visible: all)"
  std::string summary() const { return summary_; }

 private:
  int fd_ = -1;
  uint64_t count_ = 0;
  std::string summary_;
};

// A library named on the command line: a path, or a file name looked up in
// LD_LIBRARY_PATH and the system library directories.
std::string resolve_library(const std::string& name);

}  // namespace ctrl
