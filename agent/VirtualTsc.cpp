// The virtual time-stamp counter (VirtualTsc.h).
#include "VirtualTsc.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <atomic>
#include <cstdint>

#include "RawSyscall.h"
#include "VirtualClock.h"

using namespace ctrl::agent;

namespace {

std::atomic<bool> trapping_tsc{false};

// The instruction at `rip`, if it is one this emulates: its length. Reads
// no byte past the faulting instruction (the next page may be unmapped):
// 0F means at least two bytes, 0F 01 at least three.
int tsc_instruction(const volatile uint8_t* rip, bool* with_aux) {
  if (rip[0] != 0x0f) return 0;
  if (rip[1] == 0x31) {  // rdtsc
    *with_aux = false;
    return 2;
  }
  if (rip[1] != 0x01 || rip[2] != 0xf9) return 0;  // rdtscp
  *with_aux = true;
  return 3;
}

}  // namespace

namespace ctrl::agent::virtual_tsc {

bool start() {
  if (!virtual_clock::on()) return false;
  if (raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV) != 0) return false;
  trapping_tsc.store(true, std::memory_order_release);
  return true;
}

bool trapping() { return trapping_tsc.load(std::memory_order_acquire); }

bool emulate(int sig, const siginfo_t* info, ucontext_t* uc) {
  // The kernel sends the TSC fault as a general protection fault: SI_KERNEL,
  // no address.
  if (sig != SIGSEGV || info->si_code != SI_KERNEL || !trapping()) return false;
  auto& g = uc->uc_mcontext.gregs;
  bool with_aux = false;
  int length = tsc_instruction(reinterpret_cast<const volatile uint8_t*>(g[REG_RIP]), &with_aux);
  if (length == 0) return false;
  auto tsc = uint64_t(virtual_clock::read_monotonic_ns());
  g[REG_RAX] = greg_t(tsc & 0xffffffffu);  // both write 32-bit halves, clearing the upper ones
  g[REG_RDX] = greg_t(tsc >> 32);
  if (with_aux) g[REG_RCX] = 0;
  g[REG_RIP] += length;
  return true;
}

void readable_in_this_thread() {
  if (trapping()) raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_ENABLE);
}

void trapped_in_this_thread() {
  if (trapping()) raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV);
}

}  // namespace ctrl::agent::virtual_tsc
