#include "KernelWaits.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include <signal.h>

#include <cstdio>
#include <cstring>

#include "RealFunctions.h"
#include "Runtime.h"
#include "Signals.h"

extern "C" long syscall(long number, ...);

namespace ctrl::agent {

namespace {

uint64_t addr_of(long a) { return uint64_t(a); }

// The word as the waiter finds it on its turn (every other thread parked).
uint32_t load_word(uint64_t addr) { return __atomic_load_n(reinterpret_cast<const uint32_t*>(addr), __ATOMIC_SEQ_CST); }

long futex_wait(uint32_t me, uint64_t addr, uint32_t expected, bool timed, uint32_t bitset, uint64_t site) {
  if (bitset == 0) return -EINVAL;
  if (addr % 4) return -EINVAL;
  PendingOp op{OpKind::FutexWait, addr, 0, site, kNoThread, timed, 0, 4};
  op.value = expected;
  op.bitset = bitset;
  rt.begin(me, op);
  uint32_t found = load_word(addr);
  if (found != expected) {
    rt.log(me, OpKind::FutexWait, addr, site, found, 0, expected, 4, MemOrder::SeqCst, RmwOp::None, shm::kFailed);
    return -EAGAIN;
  }
  rt.model.futex_wait_begin(me, addr, expected, bitset, timed, site);
  rt.log(me, OpKind::FutexWait, addr, site, found, 0, expected, 4, MemOrder::SeqCst);
  PendingOp again = rt.model.thread(me).pending;
  rt.begin(me, again);
  bool woken = rt.model.thread(me).signalled;
  rt.log(me, OpKind::FutexWoken, addr, site, 0, 0, 0, 4, MemOrder::SeqCst, RmwOp::None,
         woken ? 0 : uint8_t(shm::kTimedOut));
  // The thread is no longer a waiter (a woken or timed-out FutexWoken
  // pending would otherwise still count in later wakes' scans).
  rt.model.set_pending(me, PendingOp{});
  return woken ? 0 : -ETIMEDOUT;
}

long futex_wake(uint32_t me, uint64_t addr, uint32_t n, uint32_t bitset, uint64_t site) {
  if (bitset == 0) return -EINVAL;
  rt.begin(me, PendingOp{OpKind::FutexWake, addr, 0, site});
  uint32_t woken = rt.model.futex_wake(addr, bitset, n);
  rt.log(me, OpKind::FutexWake, addr, site, 0, 0, woken, 4, MemOrder::SeqCst);
  return woken;
}

long futex_requeue(uint32_t me, const long a[6], bool compare, uint64_t site) {
  uint64_t addr = addr_of(a[0]), addr2 = addr_of(a[4]);
  // The fourth argument is the count of waiters to move, not a time-out.
  uint32_t n = uint32_t(a[2]), moved = uint32_t(a[3]);
  rt.begin(me, PendingOp{OpKind::FutexRequeue, addr, addr2, site});
  uint32_t found = load_word(addr);
  if (compare && found != uint32_t(a[5])) {
    rt.log(me, OpKind::FutexRequeue, addr, site, found, 0, addr2, 4, MemOrder::SeqCst, RmwOp::None, shm::kFailed);
    return -EAGAIN;
  }
  uint32_t woken = 0;
  uint32_t total = rt.model.futex_requeue(addr, addr2, n, moved, woken);
  rt.log(me, OpKind::FutexRequeue, addr, site, found, total, addr2, 4, MemOrder::SeqCst);
  return compare ? total : woken;
}

[[noreturn]] void unsupported_futex(uint32_t me, int cmd, uint64_t site) {
  char msg[shm::kMessageSize];
  snprintf(msg, sizeof msg,
           "the program calls futex operation %d, which ctrl does not model (only WAIT, WAKE, their BITSET forms, "
           "REQUEUE and CMP_REQUEUE)",
           cmd);
  rt.end_execution(shm::Outcome::Unsupported, me, site, msg);
}

// rt_sigprocmask made from a site: the mask that counts is the one the
// signal frame restores when the SIGTRAP handler returns. The managed
// signals stay unblocked, as sigprocmask() keeps them.
long sigprocmask_in_frame(ucontext_t* uc, const long a[6]) {
  if (size_t(a[3]) != sizeof(uint64_t)) return -EINVAL;
  uint64_t current = 0;
  memcpy(&current, &uc->uc_sigmask, sizeof current);
  if (a[2]) memcpy(reinterpret_cast<void*>(a[2]), &current, sizeof current);
  if (!a[1]) return 0;
  uint64_t set = 0;
  memcpy(&set, reinterpret_cast<const void*>(a[1]), sizeof set);
  uint64_t never = 0;
  for (int sig = 1; sig <= 64; ++sig)
    if (managed_signal(sig) || sig == SIGKILL || sig == SIGSTOP) never |= uint64_t(1) << (sig - 1);
  switch (int(a[0])) {
    case SIG_BLOCK: current |= set & ~never; break;
    case SIG_UNBLOCK: current &= ~set; break;
    case SIG_SETMASK: current = set & ~never; break;
    default: return -EINVAL;
  }
  memcpy(&uc->uc_sigmask, &current, sizeof current);
  return 0;
}

}  // namespace

bool perform_syscall_site(ucontext_t* uc, uint64_t address) {
  auto& g = uc->uc_mcontext.gregs;
  long nr = long(g[REG_RAX]);
  switch (nr) {
    case SYS_rt_sigreturn:
    case SYS_clone:
    case SYS_clone3:
    case SYS_fork:
    case SYS_vfork:
    case SYS_execve:
    case SYS_execveat:
    case SYS_exit:
    case SYS_exit_group:
      return false;
    default:
      break;
  }
  const long a[6] = {long(g[REG_RDI]), long(g[REG_RSI]), long(g[REG_RDX]),
                     long(g[REG_R10]), long(g[REG_R8]),  long(g[REG_R9])};
  int saved_errno = errno;  // the program's errno is not this call's business
  long result = 0;
  if (!modelled_syscall(nr, a, address, result)) {
    if (nr == SYS_rt_sigprocmask) {
      result = sigprocmask_in_frame(uc, a);
    } else {
      // rt_sigaction through the agent's syscall() (its kernel-layout
      // conversion); anything else straight to the kernel.
      ensure_real();
      long r = nr == SYS_rt_sigaction ? syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5])
                                      : real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
      result = r == -1 ? -errno : r;
    }
  }
  errno = saved_errno;
  g[REG_RAX] = greg_t(result);
  g[REG_RCX] = greg_t(address + 2);  // what the instruction leaves there
  g[REG_R11] = g[REG_EFL];
  g[REG_RIP] = greg_t(address + 2);
  return true;
}

bool modelled_syscall(long nr, const long a[6], uint64_t site, long& result) {
  if (nr != SYS_futex || !rt.controlled() || !rt.active) return false;
  uint32_t me = t_me;
  int cmd = int(a[1]) & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
  uint64_t addr = addr_of(a[0]);
  switch (cmd) {
    case FUTEX_WAIT:
      result = futex_wait(me, addr, uint32_t(a[2]), a[3] != 0, FUTEX_BITSET_MATCH_ANY, site);
      return true;
    case FUTEX_WAIT_BITSET:
      result = futex_wait(me, addr, uint32_t(a[2]), a[3] != 0, uint32_t(a[5]), site);
      return true;
    case FUTEX_WAKE:
      result = futex_wake(me, addr, uint32_t(a[2]), FUTEX_BITSET_MATCH_ANY, site);
      return true;
    case FUTEX_WAKE_BITSET:
      result = futex_wake(me, addr, uint32_t(a[2]), uint32_t(a[5]), site);
      return true;
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
      result = futex_requeue(me, a, cmd == FUTEX_CMP_REQUEUE, site);
      return true;
    default:
      unsupported_futex(me, cmd, site);
  }
}

}  // namespace ctrl::agent
