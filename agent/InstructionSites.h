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
// The rdtsc sites are no visible operations: their int3s go in from the
// agent's constructor on, and the handler answers the read (VirtualTsc.h).
#pragma once

#include <ucontext.h>

#include <cstdint>

#include "ExtendedState.h"
#include "SiteTable.h"

namespace ctrl::agent {

class InstructionSites {
 public:
  // Maps the table behind `fd` and prepares the trampolines. Returns an error
  // message, or nullptr.
  const char* load(int fd);
  // Writes the int3s and jumps, but those of the rdtsc sites. Returns an
  // error message, or nullptr.
  const char* patch();
  // Writes the int3s of the rdtsc sites (SiteKind::Tsc, VirtualTsc.h), from
  // the agent's constructor. Returns an error message, or nullptr.
  const char* patch_tsc_reads();
  uint64_t tsc_reads() const;
  bool empty() const { return count_ == 0; }
  uint64_t count() const { return count_; }
  // Some visible site is an int3 (its hook runs in a signal handler).
  bool trapped() const { return trapped_; }

  struct Entry {
    uint64_t address;     // run-time address of the instruction
    uint64_t trampoline;  // int3 sites: where to resume; jump sites: where the jmp goes
    const Site* site;
    const SitePatch* patch;
    bool jump;            // patched with a jmp to a hook trampoline (no signal)
    uint64_t relocated;   // where the copy of the instruction (and neighbours) runs
    uint32_t covered;     // bytes of original code the copy stands for
    uint64_t pre_relocated;  // where the copy of the instructions before the site runs
    uint32_t pre;            // their bytes: the jmp is at address - pre
  };
  const Entry* find(uint64_t address) const;
  // The original code address an address inside a relocated copy stands
  // for (a fault there is a fault at the site); `rip` itself otherwise.
  uint64_t original_address(uint64_t rip) const;
  // `at` holds an int3 outside every instrumented module, and the bytes after
  // it are those after one of the int3 sites: the program copied
  // instrumented code (a JIT moving its built-in code, as V8 does) and runs
  // the copy, whose patches no trampoline stands behind. A scan: only on
  // the way to ending the execution.
  bool copied_site(uint64_t at) const;

 private:
  const char* resolve_modules();
  // The patches of the rdtsc sites (`tsc`), or of the others.
  const char* write_patches(bool tsc);
  const char* build_trampolines(uint32_t module, Entry* first, Entry* last);

  const SiteTableHeader* table_ = nullptr;
  const Site* sites_ = nullptr;
  const SitePatch* patches_ = nullptr;
  uint64_t count_ = 0;
  uint64_t bases_[kMaxSiteModules] = {};
  uint64_t ends_[kMaxSiteModules] = {};
  Entry* entries_ = nullptr;  // sorted by address
  bool patched_ = false;
  bool trapped_ = false;
  ExtendedState xstate_;  // what the trampolines save around a hook
};

extern InstructionSites sites;

// SIGTRAP from an int3: if it is a site, performs the visible operation (for
// a controlled thread in an execution) and resumes through the trampoline.
// False when the trap is not one of ours.
bool handle_site_trap(ucontext_t* uc);

// Called by a jump site's trampoline with every general register and the
// flags saved in `saved` (push order reversed: r15 first, rflags last) and
// the extended state in `xsave`. Signals cost several microseconds on some
// machines; a site of 5 bytes or more is taken this way, without the kernel.
extern "C" void ctrl_site_hook(const InstructionSites::Entry* entry, const uint64_t* saved, void* xsave);

}  // namespace ctrl::agent
