#include "KernelWaits.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>

#include "AgentDescriptors.h"
#include "Dependence.h"
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
    case SIG_BLOCK:
      current |= set & ~never;
      break;
    case SIG_UNBLOCK:
      current &= ~set;
      break;
    case SIG_SETMASK:
      current = set & ~never;
      break;
    default:
      return -EINVAL;
  }
  memcpy(&uc->uc_sigmask, &current, sizeof current);
  return 0;
}

// ---- probed kernel waits ----

long raw(long nr, long a0 = 0, long a1 = 0, long a2 = 0, long a3 = 0, long a4 = 0, long a5 = 0) {
  ensure_real();
  long r = real.syscall(nr, a0, a1, a2, a3, a4, a5);
  return r == -1 ? -errno : r;
}

// What a waiting thread's probe looks at.
struct Probe {
  enum Type : uint8_t { None, FdIn, FdOut, Poll, Select, Signals, Children } type = None;
  long a[6] = {};
  uint64_t set = 0;       // Signals: the signals that end the wait
  bool unmasked = false;  // Signals: any signal not blocked by the thread (pause)
  pid_t tid = 0;
};
Probe probes[shm::kMaxThreads];

// The agent's own descriptors (control socket, region, site table).
constexpr int kAgentFds = 900;

bool fd_ready(int fd, short events) {
  pollfd p{fd, events, 0};
  return raw(SYS_poll, long(&p), 1, 0) != 0;  // ready, or an error the call will report at once
}

// "SigPnd:\t0000000000000200" and the like, from the task's status.
bool pending_signals(pid_t tid, uint64_t& pending, uint64_t& blocked) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/self/task/%d/status", int(tid));
  long fd = raw(SYS_openat, AT_FDCWD, long(path), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  long n = raw(SYS_read, fd, long(buf), sizeof buf - 1);
  raw(SYS_close, fd);
  if (n <= 0) return false;
  buf[n] = 0;
  auto field = [&](const char* name) -> uint64_t {
    const char* at = strstr(buf, name);
    return at ? strtoull(at + strlen(name), nullptr, 16) : 0;
  };
  pending = field("SigPnd:") | field("ShdPnd:");
  blocked = field("SigBlk:");
  return true;
}

bool probe(const Probe& p) {
  switch (p.type) {
    case Probe::None:
      return true;
    case Probe::FdIn:
      return fd_ready(int(p.a[0]), POLLIN);
    case Probe::FdOut:
      return fd_ready(int(p.a[0]), POLLOUT);
    case Probe::Poll: {
      // On a copy: the program's revents are the real call's business.
      nfds_t n = nfds_t(p.a[1]);
      if (n > 4096) return true;
      pollfd copy[n ? n : 1];
      memcpy(copy, reinterpret_cast<const void*>(p.a[0]), n * sizeof(pollfd));
      return raw(SYS_poll, long(copy), long(n), 0) != 0;
    }
    case Probe::Select: {
      fd_set sets[3];
      fd_set* ptrs[3] = {nullptr, nullptr, nullptr};
      for (int k = 0; k < 3; ++k)
        if (p.a[1 + k]) {
          memcpy(&sets[k], reinterpret_cast<const void*>(p.a[1 + k]), sizeof(fd_set));
          ptrs[k] = &sets[k];
        }
      timeval zero{0, 0};
      return raw(SYS_select, p.a[0], long(ptrs[0]), long(ptrs[1]), long(ptrs[2]), long(&zero)) != 0;
    }
    case Probe::Signals: {
      uint64_t pending = 0, blocked = 0;
      if (!pending_signals(p.tid, pending, blocked)) return true;
      return (pending & (p.unmasked ? ~blocked : p.set)) != 0;
    }
    case Probe::Children: {
      siginfo_t info{};
      long r = raw(SYS_waitid, p.a[0], p.a[1], long(&info), p.a[2] | WNOHANG | WNOWAIT, 0);
      return r != 0 || info.si_pid != 0;  // an error (no such child) returns at once too
    }
  }
  return true;
}

// The pipes, sockets and character devices the program was started with
// (its stdin, stdout and stderr, typically), by identity: only the world
// outside holds their other end. Recorded before the program runs, so that
// a pipe the program makes later, even on a reused descriptor number, is
// never one of them; a dup of one is.
struct OutsideFile {
  uint64_t dev, ino;
};
constexpr int kMaxOutside = 64;
OutsideFile outside_files[kMaxOutside];
int noutside = 0;

bool connected_outside(const struct stat& st) {
  for (int i = 0; i < noutside; ++i)
    if (outside_files[i].dev == uint64_t(st.st_dev) && outside_files[i].ino == uint64_t(st.st_ino)) return true;
  return false;
}

// How a read or write on `fd` waits. Native: not a wait ctrl models (a
// file, a non-blocking descriptor of the program's own). Probed: a pipe,
// socket or (for input) character device of the program's own, ready when
// poll says so. Outside: one of the descriptors the program was started
// with, whose readiness only the outside changes, at its own pace: probing
// it would make enabledness, and so the schedule, depend on timing (xz and
// pigz writing to a pipe diverged from their own plans).
enum class FdWaitKind { Native, Probed, Outside };

FdWaitKind fd_wait_kind(int fd, bool input, bool& nonblocking) {
  nonblocking = false;
  if (fd < 0 || fd >= kAgentFds) return FdWaitKind::Native;
  struct stat st;
  if (raw(SYS_fstat, fd, long(&st)) != 0) return FdWaitKind::Native;
  bool kind = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || (input && S_ISCHR(st.st_mode));
  if (!kind) return FdWaitKind::Native;
  long flags = raw(SYS_fcntl, fd, F_GETFL);
  if (flags < 0) return FdWaitKind::Native;
  nonblocking = flags & O_NONBLOCK;
  if (connected_outside(st)) return FdWaitKind::Outside;
  return nonblocking ? FdWaitKind::Native : FdWaitKind::Probed;
}

// A non-blocking write to the outside: whether it finds room, and how much,
// depends on how fast the reader outside reads. Made whole instead, waiting
// in the kernel for room (as a blocking write would), so that the program
// sees the same result in every execution. writev and sendmsg wait for room
// once, then write what fits.
long write_outside_whole(long nr, const long a[6]) {
  pollfd room{int(a[0]), POLLOUT, 0};
  if (nr != SYS_write && nr != SYS_sendto) {
    long r = raw(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (r != -EAGAIN) return r;
    raw(SYS_poll, long(&room), 1, -1);
    return raw(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
  }
  const char* buf = reinterpret_cast<const char*>(a[1]);
  size_t left = size_t(a[2]), done = 0;
  while (left > 0) {
    long r = nr == SYS_write ? raw(SYS_write, a[0], long(buf + done), long(left))
                             : raw(SYS_sendto, a[0], long(buf + done), long(left), a[3], a[4], a[5]);
    if (r == -EAGAIN) {
      raw(SYS_poll, long(&room), 1, -1);
      continue;
    }
    if (r == -EINTR && done > 0) continue;
    if (r < 0) return done > 0 ? long(done) : r;
    done += size_t(r);
    left -= size_t(r);
  }
  return long(done);
}

uint64_t sigset_at(long p) {
  uint64_t set = 0;
  if (p) memcpy(&set, reinterpret_cast<const void*>(p), sizeof set);
  return set;
}

uint64_t managed_mask() {
  uint64_t m = 0;
  for (int sig = 1; sig <= 64; ++sig)
    if (managed_signal(sig)) m |= uint64_t(1) << (sig - 1);
  return m;
}

// The wait itself: `me` waits until its probe finds the call ready (or, with
// `timed`, until it is chosen), then makes the call, unless it is chosen
// while not ready and other threads could have run: then it times out
// with `timeout_result`.
long probed_wait(uint32_t me, OpKind kind, long nr, long a[6], const Probe& p, bool timed, uint64_t addr,
                 uint64_t object, uint64_t site, long timeout_result) {
  // (Its own kernel thread: the probe reads that thread's signals.)
  rt.go_home(me);
  probes[me] = p;
  probes[me].tid = pid_t(raw(SYS_gettid));
  PendingOp op{kind, addr, 0, site, kNoThread, timed};
  op.value = uint32_t(nr);
  rt.model.kernel_wait_begin(me, op);
  rt.begin(me, op);
  const ThreadModel& th = rt.model.thread(me);
  bool alone = rt.last_enabled() == (uint64_t(1) << me);
  bool perform = th.ready || th.external || alone;
  long r = perform ? raw(nr, a[0], a[1], a[2], a[3], a[4], a[5]) : timeout_result;
  rt.log(me, kind, addr, site, uint64_t(r), uint64_t(nr), object, 0, MemOrder::NotAtomic, RmwOp::None,
         perform ? 0 : uint8_t(shm::kTimedOut));
  rt.model.set_pending(me, PendingOp{});
  rt.model.set_ready(me, false);
  probes[me] = Probe{};
  return r;
}

bool timespec_zero(long p) {
  if (!p) return false;
  auto* ts = reinterpret_cast<const timespec*>(p);
  return ts->tv_sec == 0 && ts->tv_nsec == 0;
}

// The probed calls; false when the call cannot block (not modelled).
bool probed_call(uint32_t me, long nr, const long in[6], uint64_t site, long& result) {
  long a[6];
  memcpy(a, in, sizeof a);
  Probe p;
  switch (nr) {
    case SYS_read:
    case SYS_readv:
    case SYS_accept:
    case SYS_accept4:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_write:
    case SYS_writev:
    case SYS_sendto:
    case SYS_sendmsg: {
      bool input = nr == SYS_read || nr == SYS_readv || nr == SYS_accept || nr == SYS_accept4 || nr == SYS_recvfrom ||
                   nr == SYS_recvmsg;
      long flags = nr == SYS_recvfrom || nr == SYS_sendto ? a[3] : nr == SYS_recvmsg || nr == SYS_sendmsg ? a[2] : 0;
      bool nonblocking = false;
      FdWaitKind how = fd_wait_kind(int(a[0]), input, nonblocking);
      if (how == FdWaitKind::Native) return false;
      if (how == FdWaitKind::Outside && (nonblocking || (flags & MSG_DONTWAIT))) {
        // Not a wait of the program's: an output is made whole (above); an
        // input keeps its native answer, which depends on timing.
        if (input) return false;
        result = write_outside_whole(nr, a);
        return true;
      }
      if (flags & MSG_DONTWAIT) return false;
      // Outside: always enabled (Probe::None), and blocks natively when
      // chosen, keeping the token until the outside is ready.
      p.type = how == FdWaitKind::Outside ? Probe::None : input ? Probe::FdIn : Probe::FdOut;
      p.a[0] = a[0];
      result = probed_wait(me, OpKind::FdWait, nr, a, p, false, uint64_t(a[0]), kIoObject, site, 0);
      return true;
    }
    case SYS_poll:
    case SYS_ppoll: {
      bool timed = nr == SYS_poll ? a[2] > 0 : a[2] != 0;
      if ((nr == SYS_poll && a[2] == 0) || (nr == SYS_ppoll && timespec_zero(a[2]))) return false;
      p.type = Probe::Poll;
      p.a[0] = a[0];
      p.a[1] = a[1];
      // ppoll writes the time left into its argument: give it a copy.
      timespec left{};
      if (nr == SYS_ppoll && a[2]) {
        left = *reinterpret_cast<const timespec*>(a[2]);
        a[2] = long(&left);
      }
      uint64_t fd0 = a[1] > 0 ? uint64_t(reinterpret_cast<const pollfd*>(a[0])->fd) : 0;
      result = probed_wait(me, OpKind::FdWait, nr, a, p, timed, fd0, kIoObject, site, 0);
      return true;
    }
    case SYS_select:
    case SYS_pselect6: {
      if (a[4] && (nr == SYS_select ? reinterpret_cast<const timeval*>(a[4])->tv_sec == 0 &&
                                          reinterpret_cast<const timeval*>(a[4])->tv_usec == 0
                                    : timespec_zero(a[4])))
        return false;
      if (a[0] > FD_SETSIZE) return false;
      p.type = Probe::Select;
      for (int k = 0; k < 4; ++k) p.a[k] = a[k];
      result = probed_wait(me, OpKind::FdWait, nr, a, p, a[4] != 0, 0, kIoObject, site, 0);
      return true;
    }
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
      if (a[3] == 0) return false;
      p.type = Probe::FdIn;
      p.a[0] = a[0];
      result = probed_wait(me, OpKind::FdWait, nr, a, p, a[3] > 0, uint64_t(a[0]), kIoObject, site, 0);
      return true;
    case SYS_rt_sigtimedwait:
      if (size_t(a[3]) != sizeof(uint64_t)) return false;
      p.type = Probe::Signals;
      p.set = sigset_at(a[0]);
      result = probed_wait(me, OpKind::SignalWait, nr, a, p, a[2] != 0, 0, kSignalObject, site, -EAGAIN);
      return true;
    case SYS_rt_sigsuspend: {
      if (size_t(a[1]) != sizeof(uint64_t)) return false;
      // The managed signals stay deliverable (a blocked fault kills silently).
      uint64_t mask = sigset_at(a[0]) & ~managed_mask();
      a[0] = long(&mask);
      p.type = Probe::Signals;
      p.set = ~mask;
      result = probed_wait(me, OpKind::SignalWait, nr, a, p, false, 0, kSignalObject, site, 0);
      return true;
    }
    case SYS_pause:
      p.type = Probe::Signals;
      p.unmasked = true;
      result = probed_wait(me, OpKind::SignalWait, nr, a, p, false, 0, kSignalObject, site, 0);
      return true;
    case SYS_wait4:
    case SYS_waitid: {
      long options = nr == SYS_wait4 ? a[2] : a[3];
      if (options & WNOHANG) return false;
      p.type = Probe::Children;
      if (nr == SYS_waitid) {
        p.a[0] = a[0];
        p.a[1] = a[1];
        p.a[2] = options;
      } else {
        pid_t pid = pid_t(a[0]);
        p.a[0] = pid < -1 ? P_PGID : pid == -1 ? P_ALL : pid == 0 ? P_PGID : P_PID;
        p.a[1] = pid < -1 ? -pid : pid == 0 ? raw(SYS_getpgid, 0) : pid > 0 ? pid : 0;
        p.a[2] =
            WEXITED | (options & WUNTRACED ? WSTOPPED : 0) | (options & (WCONTINUED | __WALL | __WCLONE | __WNOTHREAD));
      }
      result = probed_wait(me, OpKind::ChildWait, nr, a, p, false, 0, kChildObject, site, 0);
      return true;
    }
    case SYS_kill:
    case SYS_tgkill:
    case SYS_tkill: {
      long sig = nr == SYS_tgkill ? a[2] : a[1];
      // An execution is a process forked from the fork server, which is
      // the process the program started as: a process id the program took
      // before its first thread (lbzip2 keeps getpid() to signal itself
      // when its work is done), or its main thread's id, names the fork
      // server. Sent there, the signal never reached the execution, whose
      // main thread waited for it in sigsuspend until it was reported as
      // a hang. It is meant for the execution itself (whose main thread's
      // id is its process id).
      long server = raw(SYS_getppid), self = raw(SYS_getpid);
      if (a[0] == server) a[0] = self;
      if (nr == SYS_tgkill && a[1] == server) a[1] = self;
      rt.begin(me, PendingOp{OpKind::SignalSend, uint64_t(sig), 0, site});
      result = raw(nr, a[0], a[1], a[2]);
      rt.log(me, OpKind::SignalSend, uint64_t(sig), site, uint64_t(result), uint64_t(nr), kSignalObject);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

void note_outside_descriptors() {
  for (int fd = 0; fd < kAgentFds && noutside < kMaxOutside; ++fd) {
    struct stat st;
    if (raw(SYS_fstat, fd, long(&st)) != 0) continue;
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode))
      outside_files[noutside++] = OutsideFile{uint64_t(st.st_dev), uint64_t(st.st_ino)};
  }
}

void probe_kernel_waits() {
  ExecutionModel& m = rt.model;
  for (uint32_t t = 0; t < m.thread_count(); ++t) {
    const ThreadModel& th = m.thread(t);
    if (th.finished || th.external || !is_kernel_wait(th.pending.kind)) continue;
    m.set_ready(t, probe(probes[t]));
  }
}

bool send_signal_visibly(uint64_t site, int sig, long (*send)(void*), void* arg, long& result) {
  if (!rt.controlled() || !rt.active) return false;
  uint32_t me = t_me;
  rt.begin(me, PendingOp{OpKind::SignalSend, uint64_t(sig), 0, site});
  result = send(arg);
  rt.log(me, OpKind::SignalSend, uint64_t(sig), site, uint64_t(result), 0, kSignalObject);
  return true;
}

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
  long guarded = 0;
  if ((nr == SYS_sched_yield || nr == SYS_nanosleep || nr == SYS_clock_nanosleep) && rt.controlled() && rt.active) {
    // Made by the program's own code (the Go runtime's osyield and usleep,
    // its sysmon thread's polling), not through libc's functions: a yield
    // point, as those are (InterposeProcess.cpp). A native sleep would keep
    // the token while every other thread stays parked, and whether the
    // sleeper's next look finds the others' work done would depend on time.
    // (libc's syscall() keeps making them natively: a raw sleep there is
    // what the hang report names.)
    uint32_t me = t_me;
    PendingOp op{OpKind::Yield, 0, 0, address};
    op.drains = false;
    rt.begin(me, op);
    rt.log(me, OpKind::Yield, 0, address);
  } else if (descriptor_syscall(nr, a, &guarded)) {
    // A close/close_range/dup2 that would hit the agent's descriptors.
    result = guarded == -1 ? -errno : guarded;
  } else if (!modelled_syscall(nr, a, address, result)) {
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
  if (!rt.controlled() || !rt.active) return false;
  uint32_t me = t_me;
  constexpr long kFutexWaitv = 449;  // futex_waitv(2), not in every libc's headers
  if (nr == kFutexWaitv)
    rt.end_execution(shm::Outcome::Unsupported, me, site,
                     "the program calls futex_waitv, which ctrl does not model (a thread would sleep in the kernel)");
  if (nr != SYS_futex) return probed_call(me, nr, a, site, result);
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

void kernel_waits_thread_renamed(uint32_t t, pid_t tid) {
  if (t < shm::kMaxThreads && probes[t].tid != 0) probes[t].tid = tid;
}

}  // namespace ctrl::agent
