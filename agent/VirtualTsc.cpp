// The virtual time-stamp counter (VirtualTsc.h).
#include "VirtualTsc.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <atomic>

#include "RawSyscall.h"
#include "VirtualClock.h"

using namespace ctrl::agent;

namespace {

std::atomic<bool> virtual_on{false};

enum class Trap : int { Off, Probing, On };
std::atomic<Trap> trap{Trap::Off};
// The probe's faults that emulate() answered (confirm_trap()).
std::atomic<int> probe_answers{0};

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

void write_registers(ucontext_t* uc, uint64_t tsc, int length, bool with_aux) {
  auto& g = uc->uc_mcontext.gregs;
  g[REG_RAX] = greg_t(tsc & 0xffffffffu);  // both write 32-bit halves, clearing the upper ones
  g[REG_RDX] = greg_t(tsc >> 32);
  if (with_aux) g[REG_RCX] = 0;
  g[REG_RIP] += length;
}

}  // namespace

namespace ctrl::agent::virtual_tsc {

bool start() {
  if (!virtual_clock::on()) return false;
  virtual_on.store(true, std::memory_order_release);
  return true;
}

bool on() { return virtual_on.load(std::memory_order_acquire); }

bool request_trap() {
  if (!on() || raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV) != 0) return false;
  trap.store(Trap::Probing, std::memory_order_release);
  return true;
}

bool confirm_trap() {
  if (trap.load(std::memory_order_acquire) != Trap::Probing) return false;
  uint32_t lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  (void)lo, (void)hi;
  if (probe_answers.load(std::memory_order_acquire) > 0) {
    trap.store(Trap::On, std::memory_order_release);
    return true;
  }
  raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_ENABLE);
  trap.store(Trap::Off, std::memory_order_release);
  return false;
}

bool trapping() { return trap.load(std::memory_order_acquire) == Trap::On; }

bool emulate(int sig, const siginfo_t* info, ucontext_t* uc) {
  // The kernel sends the TSC fault as a general protection fault: SI_KERNEL,
  // no address.
  if (sig != SIGSEGV || info->si_code != SI_KERNEL) return false;
  Trap now = trap.load(std::memory_order_acquire);
  if (now == Trap::Off) return false;
  bool with_aux = false;
  int length = tsc_instruction(reinterpret_cast<const volatile uint8_t*>(uc->uc_mcontext.gregs[REG_RIP]), &with_aux);
  if (length == 0) return false;
  if (now == Trap::Probing) {
    // The agent's own probe: no tick of the virtual clock, so a machine
    // that traps and one that does not give the program the same values.
    probe_answers.fetch_add(1, std::memory_order_acq_rel);
    write_registers(uc, 0, length, with_aux);
    return true;
  }
  write_registers(uc, uint64_t(virtual_clock::read_monotonic_ns()), length, with_aux);
  return true;
}

bool answer_site(ucontext_t* uc, int length, bool with_aux) {
  if (!on()) return false;
  write_registers(uc, uint64_t(virtual_clock::read_monotonic_ns()), length, with_aux);
  return true;
}

void readable_in_this_thread() {
  if (trapping()) raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_ENABLE);
}

void trapped_in_this_thread() {
  if (trapping()) raw_syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV);
}

void real_in_this_process() {
  readable_in_this_thread();
  virtual_on.store(false, std::memory_order_release);
}

}  // namespace ctrl::agent::virtual_tsc
