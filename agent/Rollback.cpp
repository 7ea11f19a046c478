#include "Rollback.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <cstring>
#include <initializer_list>
#include <new>
#include <utility>

#include "AgentDescriptors.h"
#include "HookStack.h"
#include "MemorySnapshot.h"
#include "OwnPid.h"
#include "RawSyscall.h"
#include "Runtime.h"
#include "SavedContext.h"
#include "Signals.h"
#include "StoreBufferModel.h"
#include "ThreadPool.h"

// libc's record of the heap's end: every brk and sbrk of libc's (malloc's
// included) sets it to what the kernel answered.
extern "C" void* __curbrk;

namespace ctrl::agent::rollback {

namespace {

// The kernel's struct sigaction (rt_sigaction).
struct KernelSigaction {
  uint64_t handler, flags, restorer, mask;
};

struct Descriptor {
  int fd;
  uint64_t dev, ino;
  // A copy of a program's descriptor (taken at the checkpoint, above the
  // program's numbers) and its close-on-exec flag: put back when the
  // execution closed or replaced it (xz and pigz close their output).
  int copy = -1;
  bool cloexec = false;
};

constexpr size_t kStackSize = 256 * 1024;
constexpr int kMaxDescriptors = 1024;
// The fixed numbers ctrl gives the agent start here; copies go above both.
constexpr int kAgentDescriptors = 900;
constexpr int kCopies = 1000;

struct State {
  SavedContext ctx;
  int pid = 0;
  int control_fd = -1;
  uint32_t ticket = 0;
  int status = 0;
  uint64_t count = 0;
  const char* failure = nullptr;  // rolling back is impossible in this runner
  const char* taint = nullptr;    // ... after the current execution
  bool spread = false;            // the execution unpinned its threads (spread_threads)
  uint32_t changes = 0;           // Change bits noted in this execution
  bool status_flags_changed = true;  // take_status_flags_change (the fork server's executions: unknown)
  bool timers_at_arm = false;     // a timer ran at arming: checked after every execution
  bool curbrk_exact = false;      // __curbrk was the heap's end at arming
  // The model index whose alternate stack the main thread (0) and each
  // pool slot's thread (1 + slot) has, -1 when not known (note_alternate_stack).
  int32_t alternate_stack[1 + thread_pool::kSlots];
  uint64_t sig_changed = 0;  // bit sig-1
  KernelSigaction actions[64];
  uint64_t sigmask = 0;
  int cwd_fd = -1;
  uint64_t cwd_dev = 0, cwd_ino = 0;
  uint32_t umask = 0;
  // /proc/self/fd, open: its size (fstat) is the number of descriptors open.
  int fd_dir = -1;
  int ndescriptors = 0;
  Descriptor descriptors[kMaxDescriptors];
  // The recorded descriptors' numbers (bit fd), for note_descriptor.
  uint64_t recorded[kMaxDescriptors / 64];
  // Descriptors open when the checkpoint's are as recorded: the recorded
  // ones and their copies.
  uint64_t nopen = 0;
  MemorySnapshot snapshot;
  alignas(16) uint8_t stack[kStackSize];
};

State* g = nullptr;
bool unsupported = false;
// Set in the runner's main thread at arming (its thread-local storage is
// the checkpoint's: every rollback puts it back as set); false in every
// other thread, whose storage starts from the initial image.
thread_local bool t_main __attribute__((tls_model("initial-exec"))) = false;

bool timer_running() {
  for (int which : {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF}) {
    itimerval t;
    if (raw_syscall(SYS_getitimer, which, reinterpret_cast<long>(&t)) == 0 && (t.it_value.tv_sec || t.it_value.tv_usec))
      return true;
  }
  return false;
}

// The entry of the calling thread in State::alternate_stack, or -1.
int alternate_stack_entry() {
  if (!g || g->failure || g->pid != int(own_pid())) return -1;
  if (t_main) return 0;
  uint32_t slot = thread_pool::my_slot();
  return slot < thread_pool::kSlots ? int(1 + slot) : -1;
}

bool stat_fd(int fd, uint64_t& dev, uint64_t& ino) {
  struct stat st;
  if (raw_syscall(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0) return false;
  dev = st.st_dev;
  ino = st.st_ino;
  return true;
}

// The descriptors open now, ascending (from /proc/self/fd, read once).
const char* record_descriptors() {
  long dir =
      raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/fd"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return "cannot list /proc/self/fd";
  alignas(8) char buf[8192];
  for (;;) {
    long n = raw_syscall(SYS_getdents64, dir, reinterpret_cast<long>(buf), sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* reclen = reinterpret_cast<unsigned short*>(buf + off + 16);
      const char* name = buf + off + 19;
      off += *reclen;
      if (name[0] < '0' || name[0] > '9') continue;
      int fd = 0;
      for (const char* c = name; *c; ++c) fd = fd * 10 + (*c - '0');
      if (fd == int(dir)) continue;
      if (g->ndescriptors == kMaxDescriptors) {
        raw_syscall(SYS_close, dir);
        return "too many open descriptors";
      }
      Descriptor d{fd, 0, 0};
      if (!stat_fd(fd, d.dev, d.ino)) continue;
      if (fd < kMaxDescriptors) g->recorded[fd / 64] |= uint64_t(1) << (fd % 64);
      if (fd < kAgentDescriptors) {
        long flags = raw_syscall(SYS_fcntl, fd, F_GETFD);
        d.cloexec = flags > 0 && (flags & FD_CLOEXEC);
        long copy = raw_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, kCopies);
        if (copy >= 0) d.copy = int(copy);
      }
      int i = g->ndescriptors++;
      for (; i > 0 && g->descriptors[i - 1].fd > fd; --i) g->descriptors[i] = g->descriptors[i - 1];
      g->descriptors[i] = d;
    }
  }
  raw_syscall(SYS_close, dir);
  g->nopen = uint64_t(g->ndescriptors);
  for (int i = 0; i < g->ndescriptors; ++i) g->nopen += g->descriptors[i].copy >= 0;
  return nullptr;
}

// Whether the descriptors are the checkpoint's already, found cheaply (a
// close_range walks the whole descriptor table, about 1000 slots here: 20
// us). The agent holds its own descriptors and the copies
// (AgentDescriptors.h): the program cannot close them. So if every other
// recorded descriptor is still the same file and as many descriptors are
// open as were recorded, no other one is open. A recorded descriptor can
// only be another file if it was closed or replaced (kDescriptors): if
// not, the count alone says.
bool descriptors_intact() {
  struct stat st;
  if (g->fd_dir < 0 || raw_syscall(SYS_fstat, g->fd_dir, reinterpret_cast<long>(&st)) != 0 ||
      uint64_t(st.st_size) != g->nopen)
    return false;
  if (!(g->changes & kDescriptors)) return true;
  for (int i = 0; i < g->ndescriptors; ++i) {
    const Descriptor& d = g->descriptors[i];
    if (holds_descriptor(d.fd)) continue;
    uint64_t dev, ino;
    if (!stat_fd(d.fd, dev, ino) || dev != d.dev || ino != d.ino) return false;
  }
  // (A held one the program dup2'd onto moved, AgentDescriptors.h: the
  // program's descriptor in its place is one too many.)
  return true;
}

// Descriptors: the ones the execution opened are closed (as its exit would
// have), the checkpoint's must still be the same files.
const char* restore_descriptors() {
  if (descriptors_intact()) return nullptr;
  // Everything but the checkpoint's descriptors and their copies closes
  // (the copies lie above all of them, in recording order).
  unsigned from = 0;
  auto keep = [&](int fd) {
    if (fd < 0) return;
    if (unsigned(fd) > from) raw_syscall(SYS_close_range, from, unsigned(fd) - 1, 0);
    if (unsigned(fd) + 1 > from) from = unsigned(fd) + 1;
  };
  for (int i = 0; i < g->ndescriptors; ++i) keep(g->descriptors[i].fd);
  for (int i = 0; i < g->ndescriptors; ++i) keep(g->descriptors[i].copy);
  raw_syscall(SYS_close_range, from, ~0U, 0);
  for (int i = 0; i < g->ndescriptors; ++i) {
    const Descriptor& d = g->descriptors[i];
    uint64_t dev, ino;
    if (stat_fd(d.fd, dev, ino) && dev == d.dev && ino == d.ino) continue;
    if (d.copy < 0 || raw_syscall(SYS_dup3, d.copy, d.fd, d.cloexec ? O_CLOEXEC : 0) != d.fd ||
        !stat_fd(d.fd, dev, ino) || dev != d.dev || ino != d.ino)
      return "the program closed or replaced a descriptor it had before its first thread";
  }
  return nullptr;
}

const char* restore_process_state() {
  if (const char* err = restore_descriptors()) return err;
  for (int sig = 1; sig <= 64; ++sig)
    if (g->sig_changed & (uint64_t(1) << (sig - 1)))
      raw_syscall(SYS_rt_sigaction, sig, reinterpret_cast<long>(&g->actions[sig - 1]), 0, 8);
  g->sig_changed = 0;
  // (Cheaper than looking at "." first: about 0.5 us against 3; only when
  // the execution may have moved it, a system call fewer per execution.)
  if ((g->changes & kWorkingDirectory) && raw_syscall(SYS_fchdir, g->cwd_fd) != 0)
    return "cannot go back to the working directory";
  // (Noted by the umask interposer and the raw calls: note_change.)
  if (g->changes & kUmask) raw_syscall(SYS_umask, g->umask);
  if (g->changes & kAlternateStack)
    for (int32_t& index : g->alternate_stack) index = -1;
  g->changes = 0;
  if (g->spread) {
    gather_threads();
    g->spread = false;
  }
  return nullptr;
}

// ControlMessage{rollback_failed: {pid, reason}} with its length prefix
// (Framing.h), encoded by hand: the heap is not usable here.
void send_failure(const char* reason) {
  uint8_t inner[200], frame[220];
  size_t n = 0;
  inner[n++] = 0x08;  // pid, varint
  for (uint32_t v = uint32_t(g->pid);; v >>= 7) {
    inner[n++] = uint8_t((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (v <= 0x7f) break;
  }
  size_t len = strnlen(reason, 120);
  inner[n++] = 0x12;  // reason, bytes
  inner[n++] = uint8_t(len);
  memcpy(inner + n, reason, len);
  n += len;
  size_t m = 4;
  frame[m++] = uint8_t(12 << 3 | 2);  // ControlMessage.rollback_failed
  frame[m++] = uint8_t(n);
  memcpy(frame + m, inner, n);
  m += n;
  uint32_t body = uint32_t(m - 4);
  memcpy(frame, &body, 4);
  raw_syscall(SYS_sendto, g->control_fd, reinterpret_cast<long>(frame), long(m), MSG_NOSIGNAL, 0, 0);
}

void restore_on_own_stack(void*) {
  // The heap's end is the armed one when libc's record of it says so and no
  // raw brk was made (the record is the execution's: read before the memory
  // is put back).
  bool heap_end_unmoved =
      g->curbrk_exact && !(g->changes & kHeapEnd) && reinterpret_cast<uint64_t>(__curbrk) == g->snapshot.heap_end();
  const char* err = g->snapshot.restore(heap_end_unmoved);
  if (!err) err = restore_process_state();
  if (err) {
    g->failure = err;
    send_failure(err);
    raw_syscall(SYS_exit_group, g->status);
  }
  g->taint = nullptr;
  ++g->ticket;
  ++g->count;
  raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&g->sigmask), 0, 8);
  ctrl_context_resume(&g->ctx);
}

}  // namespace

bool arm_runner(uint32_t ticket, int control_fd) {
  long p = raw_syscall(SYS_mmap, 0, sizeof(State), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
  if (p < 0 && p > -4096) return false;
  g = new (reinterpret_cast<void*>(p)) State;
  g->pid = int(own_pid());
  g->ticket = ticket;
  g->control_fd = control_fd;
  for (int32_t& index : g->alternate_stack) index = -1;
  t_main = true;
  g->timers_at_arm = timer_running();
  for (int sig = 1; sig <= 64; ++sig)
    raw_syscall(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(&g->actions[sig - 1]), 8);
  raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, 0, reinterpret_cast<long>(&g->sigmask), 8);
  // Every execution's start unblocks the managed signals (Signals.h): a
  // resumed runner's finds them unblocked already (resume_unblocks_managed).
  g->sigmask &= ~managed_signal_set();
  g->umask = uint32_t(raw_syscall(SYS_umask, 022));
  raw_syscall(SYS_umask, g->umask);
  long cwd = raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("."), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (cwd >= 0) {
    g->cwd_fd = int(raw_syscall(SYS_fcntl, cwd, F_DUPFD_CLOEXEC, 903));
    raw_syscall(SYS_close, cwd);
  }
  if (g->cwd_fd < 0 || !stat_fd(g->cwd_fd, g->cwd_dev, g->cwd_ino)) {
    g->failure = "cannot open the working directory";
    return false;
  }
  long fd_dir =
      raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/fd"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir >= 0) {
    g->fd_dir = int(raw_syscall(SYS_fcntl, fd_dir, F_DUPFD_CLOEXEC, 903));
    raw_syscall(SYS_close, fd_dir);
  }
  // The program cannot close or replace these (held before the snapshot
  // copies the agent's memory, so every rollback keeps them held); the
  // copies are recorded below.
  hold_descriptor(&g->cwd_fd);
  hold_descriptor(&g->fd_dir);
  hold_descriptors(&g->descriptors[0].copy, sizeof(Descriptor), &g->ndescriptors);
  // The snapshot's own descriptors are opened by arm(), before the list.
  if (ctrl_context_save(&g->ctx) != 0) return true;
  // From here to the copies in arm(), this frame and its callers are what
  // every rollback comes back to.
  // (And the store buffers: every execution starts by emptying them; and
  // the hook stacks, which nothing is on at a rollback, and the carrier
  // stacks, on which idle kernel threads of the pool wait across it.)
  MemoryRange own[5] = {{uint64_t(p), uint64_t(p) + ((sizeof(State) + 4095) & ~uint64_t(4095))}};
  size_t nown = 1;
  for (MemoryRange r :
       {thread_pool::private_range(), store_buffers_memory(), hook_stacks_memory(), Runtime::carrier_stacks_memory()})
    if (r.end > r.start) own[nown++] = r;
  if (unsupported) {
    g->failure = "userfaultfd disabled (CTRL_TEST_NO_UFFD)";
    return false;
  }
  if (const char* err = g->snapshot.arm(own, nown)) {
    g->failure = err;
    return false;
  }
  g->curbrk_exact = reinterpret_cast<uint64_t>(__curbrk) == g->snapshot.heap_end();
  if (const char* err = record_descriptors()) g->failure = err;
  return false;
}

uint32_t ticket() { return g ? g->ticket : 0; }

void pretend_unsupported() { unsupported = true; }

bool armed() { return g && !g->failure && g->pid == int(own_pid()); }

bool unusable() { return !g || (g->failure && g->count == 0); }

bool is_runner() { return g && g->pid == int(own_pid()); }

bool in_main_thread() { return t_main && is_runner(); }

const char* refusal(bool any_thread) {
  if (!g) return "not a runner";
  if (g->failure) return g->failure;
  if (g->pid != int(own_pid())) return "not the runner";
  if (!any_thread && !t_main) return "the execution ended in another thread than the main one";
  if (g->taint) return g->taint;
  siginfo_t info;
  if (raw_syscall(SYS_waitid, P_ALL, 0, reinterpret_cast<long>(&info), WEXITED | WNOHANG | WNOWAIT, 0) == 0)
    return "the execution left a child process";
  uint64_t pending = 0;
  raw_syscall(SYS_rt_sigpending, reinterpret_cast<long>(&pending), 8);
  if (pending) return "the execution left a signal pending";
  // Only the calls noted can start a timer (note_change); one that ran at
  // arming may still run.
  if ((g->timers_at_arm || (g->changes & kTimers)) && timer_running()) return "the execution left a timer running";
  return nullptr;
}

void note_spread() {
  if (g) g->spread = true;
}

void taint(const char* why) {
  if (g && !g->taint) g->taint = why;
}

void note_sigaction(int sig) {
  if (g && sig >= 1 && sig <= 64) g->sig_changed |= uint64_t(1) << (sig - 1);
}

void note_change(uint32_t changes) {
  if (!g) return;
  g->changes |= changes;
  if (changes & kStatusFlags) g->status_flags_changed = true;
}

bool take_status_flags_change() {
  if (!armed()) return true;
  return std::exchange(g->status_flags_changed, false);
}

void note_descriptor(int fd) {
  // (A negative one closes nothing.)
  if (g && fd >= 0 && (fd >= kMaxDescriptors || (g->recorded[fd / 64] >> (fd % 64)) & 1)) g->changes |= kDescriptors;
}

void note_syscall(long nr) {
  switch (nr) {
    case SYS_close:
    case SYS_close_range:
    case SYS_dup2:
    case SYS_dup3:
    case SYS_io_uring_setup:
    case SYS_io_uring_enter:
      note_change(kDescriptors);
      break;
    case SYS_setitimer:
    case SYS_alarm:
      note_change(kTimers);
      break;
    case SYS_umask:
      note_change(kUmask);
      break;
    case SYS_sigaltstack:
      note_change(kAlternateStack);
      break;
    case SYS_brk:
      note_change(kHeapEnd);
      break;
    case SYS_fcntl:
    case SYS_ioctl:
    case SYS_fork:
    case SYS_vfork:
      note_change(kStatusFlags);
      break;
    case SYS_clone:
    case SYS_clone3:
      note_change(kStatusFlags | kWorkingDirectory);
      break;
    case SYS_chdir:
    case SYS_fchdir:
      note_change(kWorkingDirectory);
      break;
    default:
      break;
  }
}

bool alternate_stack_known(uint32_t index) {
  int entry = alternate_stack_entry();
  return entry >= 0 && !(g->changes & kAlternateStack) && g->alternate_stack[entry] == int32_t(index);
}

bool slot_alternate_stack_known(uint32_t slot, uint32_t index) {
  return g && !g->failure && g->pid == int(own_pid()) && slot < thread_pool::kSlots &&
         !(g->changes & kAlternateStack) && g->alternate_stack[1 + slot] == int32_t(index);
}

void note_alternate_stack(uint32_t index) {
  int entry = alternate_stack_entry();
  if (entry >= 0) g->alternate_stack[entry] = int32_t(index);
}

void note_memory_change(uint64_t addr, uint64_t len, const char* what) {
  if (g && g->snapshot.tracks(addr, len)) taint(what);
}

void abandon(const char* why, int status) {
  if (g) send_failure(why);
  raw_syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

void roll_back(int status) {
  g->status = status;
  ctrl_call_on_stack(restore_on_own_stack, nullptr, g->stack + kStackSize);
}

}  // namespace ctrl::agent::rollback
