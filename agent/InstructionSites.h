// The instruction sites of instrumented code, as the agent runs them.
//
// At start-up the agent maps the controller's site table, finds each
// module's load address and builds one trampoline per site: a copy of the
// original instruction (its rip-relative displacement re-encoded for the new
// place) followed by an absolute jump back after the original. Trampolines
// sit within 2 GiB of their module, so every re-encoded displacement fits.
// At the checkpoint (in the fork server, before the first execution) an int3
// goes over the first byte of every site; the executions inherit the patched
// text. A trap is then one SIGTRAP handled in the thread that hit it: the
// visible operation, then RIP moved to the trampoline. No single-stepping.
#pragma once

#include <ucontext.h>

#include <cstdint>

#include "SiteTable.h"

namespace ctrl::agent {

class InstructionSites {
 public:
  // Maps the table behind `fd` and prepares the trampolines. Returns an error
  // message, or nullptr.
  const char* load(int fd);
  // Writes the int3s. Returns an error message, or nullptr.
  const char* patch();
  bool empty() const { return count_ == 0; }
  uint64_t count() const { return count_; }

  struct Entry {
    uint64_t address;     // run-time address of the instruction
    uint64_t trampoline;  // where to resume
    const Site* site;
  };
  const Entry* find(uint64_t address) const;

 private:
  const char* resolve_modules();
  const char* build_trampolines(uint32_t module, Entry* first, Entry* last);

  const SiteTableHeader* table_ = nullptr;
  const Site* sites_ = nullptr;
  uint64_t count_ = 0;
  uint64_t bases_[kMaxSiteModules] = {};
  uint64_t ends_[kMaxSiteModules] = {};
  Entry* entries_ = nullptr;  // sorted by address
  bool patched_ = false;
};

extern InstructionSites sites;

// SIGTRAP from an int3: if it is a site, performs the visible operation (for
// a controlled thread in an execution) and resumes through the trampoline.
// False when the trap is not one of ours.
bool handle_site_trap(ucontext_t* uc);

}  // namespace ctrl::agent
