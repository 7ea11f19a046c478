// sigaction/signal/sigprocmask/pthread_sigmask for the managed signals (and
// the raw rt_sigaction/rt_sigprocmask through libc's syscall()), and the
// handler that turns a fatal one into a `crash` report.
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include <cstring>
#include <initializer_list>

#include "AgentDescriptors.h"
#include "DeferredSignals.h"
#include "HookStack.h"
#include "InstructionSites.h"
#include "KernelWaits.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "Signals.h"
#include "VirtualClock.h"
#include "VirtualThreadIds.h"
#include "VirtualTsc.h"

using namespace ctrl;
using namespace ctrl::agent;

namespace {

struct ProgramAction {
  struct sigaction act;
  bool known = false;
};

ProgramAction program_actions[NSIG];
bool handlers_installed = false;
// SIGTRAP (the rdtsc sites) and SIGSEGV (when rdtsc traps) are the agent's
// from its constructor on (VirtualTsc.h), before the other managed signals
// become its own. Bit sig-1.
uint64_t taken_early = 0;

bool is_taken_early(int sig) { return (taken_early >> (sig - 1)) & 1; }

bool agent_keeps(int sig) { return handlers_installed || is_taken_early(sig); }

// A mask the program sets before the first execution: rdtsc's SIGSEGV or
// SIGTRAP cannot be blocked (a blocked fault kills the process).
void remove_early(sigset_t& set) {
  for (int sig : {SIGSEGV, SIGTRAP})
    if (is_taken_early(sig)) sigdelset(&set, sig);
}

// The kernel's struct sigaction (x86-64) and signal set, for the raw calls.
struct KernelSigaction {
  void* handler;
  unsigned long flags;
  void (*restorer)();
  uint64_t mask;
};
constexpr size_t kKernelSigsetSize = sizeof(uint64_t);
constexpr unsigned long kSaRestorer = 0x04000000;  // SA_RESTORER (asm/signal.h), not in libc's headers

void remove_managed(sigset_t& set) {
  for (int sig = 1; sig < NSIG; ++sig)
    if (managed_signal(sig)) sigdelset(&set, sig);
}

void on_signal(int sig, siginfo_t* info, void* context) {
  // First: the program's rdtsc is no fault of its own, and no handler of
  // the program (or of a sanitizer) must see it (nor its rdtsc sites' int3,
  // handle_site_trap).
  if (virtual_tsc::emulate(sig, info, static_cast<ucontext_t*>(context))) return;
  if (sig == SIGTRAP && info->si_code == SI_KERNEL && handle_site_trap(static_cast<ucontext_t*>(context))) return;
  if (sig == SIGTRAP && info->si_code == SI_KERNEL && rt.enabled && rt.active && !rt.ended) {
    // Not a bug of the program: ctrl's own patch, run from where the program copied it.
    uint64_t at = uint64_t(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]) - 1;
    if (sites.copied_site(at))
      rt.end_execution(shm::Outcome::Unsupported, t_me, at,
                       "the program runs a copy it made of instrumented code (a JIT moving its built-in code, as "
                       "V8 does: run node with --no-short-builtin-calls), and ctrl cannot follow copied code");
  }
  if (forward_to_program(sig, info, context)) return;
  const ProgramAction& p = program_actions[sig];
  bool sent = info->si_code <= 0;  // kill/raise rather than a fault
  if (p.known && p.act.sa_handler == SIG_IGN && sent) return;
  if (rt.enabled && rt.active && !rt.ended) {
    auto* uc = static_cast<ucontext_t*>(context);
    rt.region.header->signal = sig;
    rt.region.header->fault_addr = reinterpret_cast<uint64_t>(info->si_addr);
    // A fault in a site's relocated copy is a fault at the site: registers
    // are as the original instruction would have them, so the signal frame
    // can say so and the controller's backtrace goes on through the caller.
    // (This frame never returns: the execution ends here.)
    auto& rip = uc->uc_mcontext.gregs[REG_RIP];
    rip = greg_t(sites.original_address(uint64_t(rip)));
    rt.end_execution(shm::Outcome::Crash, t_me, uint64_t(rip), "");
  }
  // Outside an execution: the default action, as if we were not here.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  real.sigaction(sig, &dfl, nullptr);
  if (sent) raise(sig);
}

}  // namespace

namespace ctrl::agent {

bool managed_signal(int sig) {
  switch (sig) {
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGSYS:
    case SIGTRAP:
    case SIGABRT:
      return true;
    default:
      return false;
  }
}

bool forward_to_program(int sig, siginfo_t* info, void* context) {
  ProgramAction& p = program_actions[sig];
  if (!p.known || p.act.sa_handler == SIG_DFL || p.act.sa_handler == SIG_IGN) return false;
  // Never ours: a SIGSEGV action read back from the kernel after the agent
  // installed its handler (VirtualTsc.h) came back as the program's, and a
  // crash called itself for ever instead of ending the execution.
  if ((p.act.sa_flags & SA_SIGINFO) && p.act.sa_sigaction == on_signal) return false;
  struct sigaction act = p.act;
  if (act.sa_flags & SA_RESETHAND) {
    p.act.sa_handler = SIG_DFL;
    p.act.sa_flags &= ~SA_SIGINFO;
  }
  if (act.sa_flags & SA_SIGINFO)
    act.sa_sigaction(sig, info, context);
  else
    act.sa_handler(sig);
  return true;
}

namespace {
struct sigaction agent_action() {
  struct sigaction ours {};
  ours.sa_sigaction = on_signal;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&ours.sa_mask);
  return ours;
}
}  // namespace

void take_early_for_tsc(int sig) {
  ensure_real();
  ProgramAction& p = program_actions[sig];
  if (!p.known) {
    // A sanitizer's runtime, initialised before the agent, has its handler
    // there already: it becomes the program's action, called from ours.
    real.sigaction(sig, nullptr, &p.act);
    if ((p.act.sa_flags & SA_SIGINFO) && p.act.sa_sigaction == on_signal) p.act.sa_handler = SIG_DFL;
    p.known = true;
  }
  struct sigaction ours = agent_action();
  real.sigaction(sig, &ours, nullptr);
  taken_early |= uint64_t(1) << (sig - 1);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  real.pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
}

void install_execution_signal_handlers() {
  ensure_real();
  struct sigaction ours = agent_action();
  for (int sig = 1; sig < NSIG; ++sig) {
    if (!managed_signal(sig)) continue;
    ProgramAction& p = program_actions[sig];
    if (!p.known) {
      real.sigaction(sig, nullptr, &p.act);
      if ((p.act.sa_flags & SA_SIGINFO) && p.act.sa_sigaction == on_signal) p.act.sa_handler = SIG_DFL;
      p.known = true;
    }
    real.sigaction(sig, &ours, nullptr);
  }
  handlers_installed = true;
  deferred_signals::scan_program_handlers();
  sigset_t unblock;
  sigemptyset(&unblock);
  for (int sig = 1; sig < NSIG; ++sig)
    if (managed_signal(sig)) sigaddset(&unblock, sig);
  real.pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
}

namespace {
// One alternate signal stack per thread index, mapped once (at the first
// thread's creation, before the checkpoint): a stack mapped per thread and
// execution cost a mapping and its faults every time, and a runner
// (Rollback.h) would have to find and remove it after each execution.
constexpr size_t kAltStackSize = 64 * 1024;
uint8_t* alt_stacks = nullptr;
}  // namespace

void reserve_alternate_stacks() {
  reserve_hook_stacks();
  if (alt_stacks) return;
  void* p = mmap(nullptr, kAltStackSize * shm::kMaxThreads, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) alt_stacks = static_cast<uint8_t*>(p);
}

uint64_t managed_signal_set() {
  // The kernel's 8-byte sigset: bit sig-1.
  uint64_t set = 0;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGTRAP, SIGABRT}) set |= uint64_t(1) << (sig - 1);
  return set;
}

void unblock_managed_signals() {
  uint64_t set = managed_signal_set();
  raw_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&set), 0, 8);
}

stack_t prepare_thread_signals(uint32_t index, bool unblocked) {
  // A thread may start with everything blocked: a sanitizer's runtime blocks
  // every signal around its pthread_create (before the checkpoint, while the
  // text is not patched yet), and its own sites then trap.
  if (!unblocked) unblock_managed_signals();
  take_hook_stack(index);
  stack_t now{};
  void* stack = nullptr;
  if (alt_stacks && index < shm::kMaxThreads) {
    stack = alt_stacks + size_t(index) * kAltStackSize;
    // A runner's main thread and its pool's threads keep theirs from one
    // execution to the next (Rollback.h).
    if (rollback::alternate_stack_known(index)) {
      now.ss_sp = stack;
      now.ss_size = kAltStackSize;
      return now;
    }
    raw_syscall(SYS_sigaltstack, 0, reinterpret_cast<long>(&now));
    if (now.ss_sp == stack && now.ss_size == kAltStackSize && now.ss_flags == 0) {
      rollback::note_alternate_stack(index);
      return now;
    }
  } else {
    stack = mmap(nullptr, kAltStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) {
      raw_syscall(SYS_sigaltstack, 0, reinterpret_cast<long>(&now));
      return now;
    }
  }
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = kAltStackSize;
  // Not on it (this is ordinary code): the kernel reports what was set.
  if (raw_syscall(SYS_sigaltstack, reinterpret_cast<long>(&ss), 0) == 0) {
    if (alt_stacks && index < shm::kMaxThreads) rollback::note_alternate_stack(index);
    return ss;
  }
  raw_syscall(SYS_sigaltstack, 0, reinterpret_cast<long>(&now));
  return now;
}

}  // namespace ctrl::agent

extern "C" {

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  ensure_real();
  if (!rt.enabled || sig <= 0 || sig >= NSIG) return real.sigaction(sig, act, old);
  if (!managed_signal(sig)) {
    // A handler that runs with the managed signals blocked (sigfillset is a
    // common sa_mask) would be killed silently by a fault or an int3 site.
    if (!act) return real.sigaction(sig, act, old);
    rollback::note_sigaction(sig);
    deferred_signals::note_program_handler(sig, act->sa_handler);
    struct sigaction copy = *act;
    remove_managed(copy.sa_mask);
    return real.sigaction(sig, &copy, old);
  }
  ProgramAction& p = program_actions[sig];
  if (!agent_keeps(sig)) {
    // Before the first execution the program's actions are its own.
    int r = real.sigaction(sig, act, old);
    if (r == 0 && act) {
      p.act = *act;
      p.known = true;
    }
    return r;
  }
  if (old) *old = p.act;
  if (act) {
    p.act = *act;
    p.known = true;
  }
  return 0;
}

sighandler_t signal(int sig, sighandler_t handler) {
  ensure_real();
  struct sigaction act {
  }, old{};
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  ensure_real();
  // The mask is its kernel thread's: a thread another one carries goes
  // home first (Runtime.h, user-level hand-offs).
  if (rt.controlled()) rt.go_home(t_me);
  if (!rt.enabled || !set || how == SIG_UNBLOCK || (!handlers_installed && !taken_early))
    return real.sigprocmask(how, set, old);
  sigset_t copy = *set;
  if (handlers_installed)
    remove_managed(copy);
  else
    remove_early(copy);
  return real.sigprocmask(how, &copy, old);
}

int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  ensure_real();
  if (rt.controlled()) rt.go_home(t_me);
  if (!rt.enabled || !set || how == SIG_UNBLOCK || (!handlers_installed && !taken_early))
    return real.pthread_sigmask(how, set, old);
  sigset_t copy = *set;
  if (handlers_installed)
    remove_managed(copy);
  else
    remove_early(copy);
  return real.pthread_sigmask(how, &copy, old);
}

// The raw system calls, made through libc's syscall(): futexes are modelled
// (KernelWaits.h); rt_sigaction/rt_sigprocmask follow the same rules as the
// libc functions, on the kernel's layouts.
long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& v : a) v = va_arg(ap, long);  // as libc's syscall(): six registers, whatever was passed
  va_end(ap);
  ensure_real();
  rollback::note_syscall(number);
  if (number == SYS_gettid) {
    pid_t tid;
    if (virtual_thread_ids::own(&tid)) return tid;  // (VirtualThreadIds.h)
  }
  if (number == SYS_tgkill) a[1] = virtual_thread_ids::to_real(pid_t(a[1]));
  if (number == SYS_tkill) a[0] = virtual_thread_ids::to_real(pid_t(a[0]));
  if (long r; descriptor_syscall(number, a, &r)) return r;
  if (long r; virtual_clock::answer_syscall(number, a, &r)) return r;
  long modelled = 0;
  if (modelled_syscall(number, a, reinterpret_cast<uint64_t>(__builtin_return_address(0)), modelled)) {
    if (modelled >= 0) return modelled;
    errno = int(-modelled);
    return -1;
  }
  if (number == SYS_execve || number == SYS_execveat) {
    virtual_tsc::readable_in_this_thread();  // (VirtualTsc.h)
    long r = real.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    int e = errno;
    virtual_tsc::trapped_in_this_thread();
    errno = e;
    return r;
  }
  bool signal_call = (number == SYS_rt_sigaction || number == SYS_rt_sigprocmask) && rt.enabled;
  if (!signal_call) return real.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (size_t(a[3]) != kKernelSigsetSize) {  // both take the set's size last
    errno = EINVAL;
    return -1;
  }
  if (number == SYS_rt_sigaction) {
    auto* kact = reinterpret_cast<const KernelSigaction*>(a[1]);
    auto* kold = reinterpret_cast<KernelSigaction*>(a[2]);
    struct sigaction act {
    }, old{};
    if (kact) {
      act.sa_sigaction = reinterpret_cast<void (*)(int, siginfo_t*, void*)>(kact->handler);
      act.sa_flags = int(kact->flags & ~kSaRestorer);  // libc supplies its own restorer
      sigemptyset(&act.sa_mask);
      memcpy(&act.sa_mask, &kact->mask, kKernelSigsetSize);
    }
    int r = sigaction(int(a[0]), kact ? &act : nullptr, kold ? &old : nullptr);
    if (r == 0 && kold) {
      kold->handler = reinterpret_cast<void*>(old.sa_sigaction);
      kold->flags = unsigned(old.sa_flags);
      kold->restorer = old.sa_restorer;
      memcpy(&kold->mask, &old.sa_mask, kKernelSigsetSize);
    }
    return r;
  }
  auto* kset = reinterpret_cast<const uint64_t*>(a[1]);  // rt_sigprocmask
  auto* kold = reinterpret_cast<uint64_t*>(a[2]);
  sigset_t set, old;
  sigemptyset(&set);
  if (kset) memcpy(&set, kset, kKernelSigsetSize);
  int r = sigprocmask(int(a[0]), kset ? &set : nullptr, kold ? &old : nullptr);
  if (r == 0 && kold) memcpy(kold, &old, kKernelSigsetSize);
  return r;
}

}  // extern "C"
