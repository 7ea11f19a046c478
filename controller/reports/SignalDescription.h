// Signals as ctrl's reports name them ("SIGSEGV") and a fault as one line a
// user reads (what was accessed, and where). Shared by the files that
// define Session's members (start-up, supervision, outcomes, stop_reason),
// which must word a signal the same way whichever of them sees it.
#pragma once

#include <fmt/format.h>
#include <signal.h>
#include <string.h>

#include <cstdint>
#include <string>

namespace ctrl {

inline std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : fmt::format("signal {}", sig);
}

inline std::string fault_description(int sig, uint64_t addr) {
  switch (sig) {
    case SIGSEGV:
      return fmt::format("{}: invalid memory access at address {:#x}{}", signal_name(sig), addr,
                         addr < 4096 ? " (null pointer dereference)" : "");
    case SIGBUS:
      return fmt::format("{}: bus error at address {:#x}", signal_name(sig), addr);
    case SIGFPE:
      return fmt::format("{}: arithmetic exception at {:#x}", signal_name(sig), addr);
    case SIGILL:
      return fmt::format("{}: illegal instruction at {:#x}", signal_name(sig), addr);
    default:
      return fmt::format("{}: {}", signal_name(sig), strsignal(sig));
  }
}

}  // namespace ctrl
