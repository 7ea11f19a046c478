#include "DeferredSignals.h"

#include <signal.h>
#include <sys/syscall.h>

#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Signals.h"

namespace ctrl::agent::deferred_signals {

namespace {

// Set once a non-managed signal has a handler; never cleared (a program
// that restores a default action leaves a little cost, no harm).
bool any_handler = false;

uint64_t deferrable() {
  uint64_t set = 0;
  for (int sig = 1; sig <= 64; ++sig)
    if (!managed_signal(sig) && sig != SIGKILL && sig != SIGSTOP) set |= uint64_t(1) << (sig - 1);
  return set;
}

bool is_handler(void (*h)(int)) { return h != SIG_DFL && h != SIG_IGN; }

}  // namespace

void note_program_handler(int sig, void (*handler)(int)) {
  if (sig > 0 && sig <= 64 && !managed_signal(sig) && is_handler(handler)) any_handler = true;
}

void scan_program_handlers() {
  if (any_handler) return;
  ensure_real();
  for (int sig = 1; sig < NSIG && !any_handler; ++sig) {
    if (managed_signal(sig) || sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction now {};
    if (real.sigaction(sig, nullptr, &now) == 0) note_program_handler(sig, now.sa_handler);
  }
}

uint64_t hold() {
  if (!any_handler) return 0;
  static const uint64_t all = deferrable();
  uint64_t before = 0;
  if (raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, reinterpret_cast<long>(&all), reinterpret_cast<long>(&before), 8) != 0)
    return 0;
  return all & ~before;
}

bool program_handlers() { return any_handler; }

void release(uint64_t held) {
  if (held) raw_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&held), 0, 8);
}

}  // namespace ctrl::agent::deferred_signals
