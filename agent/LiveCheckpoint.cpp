#include "LiveCheckpoint.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <new>

#include "AgentDescriptors.h"
#include "DirectoryEntries.h"
#include "FileJournal.h"
#include "Framing.h"
#include "KernelWaits.h"
#include "Notice.h"
#include "RealFunctions.h"
#include "Runtime.h"
#include "ThreadPool.h"
#include "VirtualClock.h"
#include "control.pb.h"

namespace ctrl::agent::live_checkpoint {

namespace {

// What the kernel keeps of a thread that a fork does not copy, or that a
// new thread must be given.
struct ThreadRecord {
  uint64_t fs_base = 0;  // pthread_self(): the thread pointer
  stack_t altstack{};    // at its first turn
  // At the checkpoint:
  bool present = false;
  pid_t tid = 0;
  void* robust_head = nullptr;
  size_t robust_len = 0;
  uint64_t sigmask = 0;
  uint64_t pending = 0;   // signals pending for the thread (blocked, or it would have taken them)
  ParkContext context{};  // copied while the thread sleeps
};

constexpr int kMaxFiles = 256;
struct FileOffset {
  int fd;
  off_t offset;
};

// A pipe whose both ends the program holds (a pipe between its threads):
// what it held at the checkpoint. The pipe itself is shared with the
// checkpoint process, so what the execution reads from it after the
// checkpoint would be missing in a restore.
constexpr int kMaxPipes = 8;
constexpr size_t kPipeBytes = 65536;  // a pipe's default capacity
struct PipeContents {
  int read_fd, write_fd;
  size_t size;
  char data[kPipeBytes];
};

// The state of the latest checkpoint taken in this process. A checkpoint
// process keeps its own copy (the fork's), so a later take() in the
// execution does not change it.
struct Snapshot {
  uint32_t me = 0;
  uint64_t step = 0;
  int fork_server = 0;
  uint32_t slot = 0;
  uint64_t journal_mark = 0;
  uint64_t shared_pending = 0;  // signals pending for the process
  int nfiles = 0;
  FileOffset files[kMaxFiles];
  int npipes = 0;
  PipeContents pipes[kMaxPipes];
  ThreadRecord threads[shm::kMaxThreads];
};

// Mapped at the first checkpoint (agent memory, not the program's heap):
// executions that take none do not carry it.
Snapshot* snapshot = nullptr;
// Threads of a restore that have set themselves up (restore_thread), a
// private futex the restoring thread waits on.
uint32_t restored_threads = 0;

constexpr unsigned long kProcessFlags = CLONE_PARENT | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD;
constexpr unsigned long kThreadFlags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                                       CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
constexpr uint32_t kRseqSig = 0x53053053;

template <typename... Args>
long sys(long number, Args... args) {
  return real.syscall(number, args...);
}

int* tid_word_of(uint64_t fs_base) { return reinterpret_cast<int*>(fs_base + uint64_t(Runtime::tid_offset())); }

uint64_t now_ns() { return uint64_t(virtual_clock::real_monotonic_ns()); }

// A thread's signal state from /proc/self/task/TID/status (no heap, no
// stdio): blocked (SigBlk), pending for it (SigPnd) and for the process
// (ShdPnd). A fork copies none of the pending ones.
struct SignalState {
  uint64_t blocked = 0, pending = 0, shared = 0;
};
bool signal_state(pid_t tid, SignalState& state) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
  int fd = int(sys(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return false;
  char buf[4096];
  long n = sys(SYS_read, fd, buf, sizeof buf - 1);
  sys(SYS_close, fd);
  if (n <= 0) return false;
  buf[n] = 0;
  const char* blocked = strstr(buf, "SigBlk:");
  const char* pending = strstr(buf, "SigPnd:");
  const char* shared = strstr(buf, "ShdPnd:");
  if (!blocked || !pending || !shared) return false;
  state.blocked = strtoull(blocked + 7, nullptr, 16);
  state.pending = strtoull(pending + 7, nullptr, 16);
  state.shared = strtoull(shared + 7, nullptr, 16);
  return true;
}

int count_tasks() {
  int dir = int(sys(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return -1;
  int n = 0;
  for_each_entry(dir, [&](const char*) { ++n; });
  sys(SYS_close, dir);
  return n;
}

// Reads what `fd` (a pipe's read end) holds now, without blocking, into
// `out` (or discards it when `out` is null). Returns the bytes read.
size_t drain(int fd, char* out, size_t capacity) {
  long flags = sys(SYS_fcntl, fd, F_GETFL);
  if (flags < 0) return 0;
  sys(SYS_fcntl, fd, F_SETFL, flags | O_NONBLOCK);
  size_t size = 0;
  char scratch[4096];
  for (;;) {
    char* at = out ? out + size : scratch;
    size_t room = out ? capacity - size : sizeof scratch;
    if (room == 0) break;
    long n = sys(SYS_read, fd, at, room);
    if (n <= 0) break;
    size += size_t(n);
  }
  sys(SYS_fcntl, fd, F_SETFL, flags);
  return size;
}

void put_back(const PipeContents& p) {
  for (size_t done = 0; done < p.size;) {
    long n = sys(SYS_write, p.write_fd, p.data + done, p.size - done);
    if (n <= 0) return;
    done += size_t(n);
  }
}

// Offsets of the program's descriptors on regular files: they belong to
// open file descriptions the execution shares with its checkpoints. And
// the contents of the pipes between its threads, read out and written back.
void record_files() {
  snapshot->nfiles = 0;
  snapshot->npipes = 0;
  struct Fifo {
    int fd;
    uint64_t dev, ino;
    long mode;
  } fifos[2 * kMaxPipes];
  int nfifos = 0;
  int dir = int(sys(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return;
  for_each_entry(dir, [&](const char* name) {
    int fd = atoi(name);
    if (fd == dir || agent_descriptor(fd)) return;
    struct stat st;
    if (sys(SYS_fstat, fd, &st) != 0) return;
    if (S_ISFIFO(st.st_mode)) {
      if (nfifos < 2 * kMaxPipes)
        fifos[nfifos++] = Fifo{fd, st.st_dev, st.st_ino, sys(SYS_fcntl, fd, F_GETFL) & O_ACCMODE};
      return;
    }
    if (!S_ISREG(st.st_mode) || snapshot->nfiles >= kMaxFiles) return;
    long off = sys(SYS_lseek, fd, 0, SEEK_CUR);
    if (off >= 0) snapshot->files[snapshot->nfiles++] = FileOffset{fd, off_t(off)};
  });
  sys(SYS_close, dir);
  for (int r = 0; r < nfifos; ++r) {
    if (fifos[r].mode != O_RDONLY || snapshot->npipes >= kMaxPipes) continue;
    for (int w = 0; w < nfifos; ++w) {
      if (fifos[w].mode != O_WRONLY || fifos[w].dev != fifos[r].dev || fifos[w].ino != fifos[r].ino) continue;
      // Larger than the copy: left as it is.
      if (sys(SYS_fcntl, fifos[r].fd, F_GETPIPE_SZ) > long(kPipeBytes)) break;
      PipeContents& p = snapshot->pipes[snapshot->npipes++];
      p.read_fd = fifos[r].fd;
      p.write_fd = fifos[w].fd;
      p.size = drain(p.read_fd, p.data, kPipeBytes);
      put_back(p);
      break;
    }
  }
}

void fail(const char* why) {
  shm::Header* h = rt.region.header;
  h->checkpoint_result = -1;
  snprintf(h->checkpoint_error, sizeof h->checkpoint_error, "%s", why);
}

// First code of a recreated thread, on a stack just below its parked frame.
void restore_thread(void* arg) {
  const ThreadRecord& r = *static_cast<const ThreadRecord*>(arg);
  if (!(r.altstack.ss_flags & SS_DISABLE)) {
    stack_t ss = r.altstack;
    ss.ss_flags = 0;
    sys(SYS_sigaltstack, &ss, nullptr);
  }
  if (__rseq_size > 0) {
    // glibc registers the whole area (32 bytes) and may export a smaller
    // feature size.
    void* area = reinterpret_cast<char*>(r.fs_base) + __rseq_offset;
    if (sys(SYS_rseq, area, 32, 0, kRseqSig) != 0 && __rseq_size > 32) sys(SYS_rseq, area, __rseq_size, 0, kRseqSig);
  }
  if (r.robust_head) sys(SYS_set_robust_list, r.robust_head, r.robust_len);
  sys(SYS_rt_sigprocmask, SIG_SETMASK, &r.sigmask, nullptr, 8);
  __atomic_add_fetch(&restored_threads, 1, __ATOMIC_RELEASE);
  sys(SYS_futex, &restored_threads, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  ctrl_park_resume(&r.context);
}

// glibc keeps the owner's tid in a held mutex (__owner, and __lock for
// robust and priority-inheritance ones) and in a write-locked rwlock
// (__cur_writer); error-checking and recursive mutexes and rwlock unlocks
// compare it with the caller's.
void rename_owners(const pid_t* new_tid) {
  rt.model.for_each_held([&](uint64_t addr, uint32_t owner, bool rwlock) {
    if (owner >= shm::kMaxThreads || !snapshot->threads[owner].present) return;
    int old_tid = snapshot->threads[owner].tid, tid = new_tid[owner];
    if (rwlock) {
      int* writer = reinterpret_cast<int*>(addr + 24);
      if (*writer == old_tid) *writer = tid;
      return;
    }
    int* lock = reinterpret_cast<int*>(addr);
    int* owner_tid = reinterpret_cast<int*>(addr + 8);
    if (*owner_tid == old_tid) *owner_tid = tid;
    if ((*lock & FUTEX_TID_MASK) == old_tid) *lock = (*lock & ~FUTEX_TID_MASK) | tid;
  });
}

// In the new live process, on the deciding thread: the rest of the process.
bool restore_process() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != snapshot->fork_server) real._exit(0);
  shm::Header* h = rt.region.header;
  const ThreadRecord& mine = snapshot->threads[snapshot->me];
  if (mine.robust_head) sys(SYS_set_robust_list, mine.robust_head, mine.robust_len);
  pid_t new_tid[shm::kMaxThreads] = {};
  new_tid[snapshot->me] = pid_t(sys(SYS_gettid));
  uint32_t created = 0;
  __atomic_store_n(&restored_threads, 0, __ATOMIC_RELAXED);
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) {
    ThreadRecord& r = snapshot->threads[t];
    if (!r.present || t == snapshot->me) continue;
    // Its record in the stack copy: park_sleep marks it valid again.
    __atomic_store_n(&rt.park(t).context->valid, 0, __ATOMIC_RELAXED);
    // Below the parked frame (and below any red zone of its caller).
    auto stack = reinterpret_cast<void*>((r.context.rsp - 1024) & ~uint64_t(15));
    int* word = tid_word_of(r.fs_base);
    long tid = ctrl_clone_thread(kThreadFlags, stack, word, word, r.fs_base, restore_thread, &r);
    if (tid <= 0) return false;
    new_tid[t] = pid_t(tid);
    ++created;
  }
  // Every thread back in its futex wait before anyone looks at it: first
  // set up (a futex, not a spin: on a loaded machine spinning here only
  // delays the threads it waits for), then in park_sleep again.
  for (uint32_t n; (n = __atomic_load_n(&restored_threads, __ATOMIC_ACQUIRE)) < created;)
    sys(SYS_futex, &restored_threads, FUTEX_WAIT_PRIVATE, n, nullptr, nullptr, 0);
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) {
    if (!snapshot->threads[t].present || t == snapshot->me) continue;
    while (__atomic_load_n(&rt.park(t).context->valid, __ATOMIC_ACQUIRE) == 0) sched_yield();
  }
  rename_owners(new_tid);
  // Pending signals, once each (a queued real-time signal's other instances
  // and every siginfo are lost); they stay pending where they are blocked.
  pid_t pid = pid_t(sys(SYS_getpid));
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) {
    if (!snapshot->threads[t].present) continue;
    for (uint64_t m = snapshot->threads[t].pending; m; m &= m - 1)
      sys(SYS_tgkill, pid, new_tid[t], __builtin_ctzll(m) + 1);
  }
  for (uint64_t m = snapshot->shared_pending; m; m &= m - 1) sys(SYS_kill, pid, __builtin_ctzll(m) + 1);
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) {
    if (new_tid[t]) {
      h->threads[t].tid = new_tid[t];
      kernel_waits_thread_renamed(t, new_tid[t]);
    }
  }
  for (int i = 0; i < snapshot->npipes; ++i) {
    const PipeContents& p = snapshot->pipes[i];
    drain(p.read_fd, nullptr, 0);
    put_back(p);
  }
  for (int i = 0; i < snapshot->nfiles; ++i) sys(SYS_lseek, snapshot->files[i].fd, snapshot->files[i].offset, SEEK_SET);
  if (journal::mark() != snapshot->journal_mark) {
    char text[160];
    snprintf(text, sizeof text, "files changed after the live checkpoint at step %lu are not put back by its restore",
             (unsigned long)snapshot->step);
    send_notice(text);
  }
  return true;
}

// The checkpoint process: waits for commands on its slot.
Taken serve(shm::CheckpointSlot& slot) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != snapshot->fork_server) real._exit(0);
  auto* word = reinterpret_cast<uint32_t*>(&slot.command);
  int* my_tid = tid_word_of(snapshot->threads[snapshot->me].fs_base);
  for (;;) {
    auto command = shm::CheckpointCommand(slot.command.load(std::memory_order_acquire));
    if (command == shm::CheckpointCommand::None) {
      sys(SYS_futex, word, FUTEX_WAIT, 0, nullptr, nullptr, 0);
      continue;
    }
    if (command == shm::CheckpointCommand::Drop) {
      slot.pid = 0;
      slot.command.store(0, std::memory_order_relaxed);
      slot.state.store(uint32_t(shm::CheckpointState::Free), std::memory_order_release);
      real._exit(0);
    }
    if (command == shm::CheckpointCommand::Restore) {
      long child = sys(SYS_clone, kProcessFlags, nullptr, nullptr, my_tid, 0);
      if (child == 0) {
        if (!restore_process()) {
          proto::ControlMessage m;
          m.mutable_error()->set_message("a live checkpoint could not recreate its threads (clone failed)");
          framing::send_message(rt.control_fd, m);
          real._exit(112);
        }
        return Taken::Restored;
      }
      slot.command.store(0, std::memory_order_release);
      slot.restored_pid.store(child > 0 ? int32_t(child) : -1, std::memory_order_release);
      sys(SYS_futex, reinterpret_cast<uint32_t*>(&slot.restored_pid), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
      continue;
    }
    slot.command.store(0, std::memory_order_release);
  }
}

}  // namespace

void thread_started(uint32_t t, const stack_t& altstack) {
  if (t >= shm::kMaxThreads) return;
  rt.park(t).fs_base = uint64_t(pthread_self());
  rt.park(t).altstack = altstack;
}

Taken take(uint32_t me, uint64_t step, int fork_server) {
  AgentScope scope;
  shm::Header* h = rt.region.header;
  h->checkpoint_error[0] = 0;
  if (!snapshot) {
    void* m = mmap(nullptr, sizeof(Snapshot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      fail("no memory for a checkpoint");
      return Taken::Original;
    }
    snapshot = new (m) Snapshot();
  }
  if (Runtime::tid_offset() < 0) {
    fail("libc's thread descriptor has no tid word ctrl could find");
    return Taken::Original;
  }
  // Every other live thread asleep in park_sleep; new threads may still be
  // on their way to their first turn.
  const ExecutionModel& model = rt.model;
  uint64_t others = 0;
  for (uint32_t t = 0; t < model.thread_count() && t < shm::kMaxThreads; ++t)
    if (t != me && model.thread(t).used && !model.thread(t).finished) others |= uint64_t(1) << t;
  uint64_t deadline = now_ns() + 2000000000u;
  for (;;) {
    bool all = true;
    for (uint64_t m = others; m && all; m &= m - 1) {
      uint32_t t = uint32_t(__builtin_ctzll(m));
      // While go says kSleeping the thread stays in wait_turn's sleeping
      // loop: the record it points to is live.
      const ParkContext* c = rt.parked_asleep(t) ? __atomic_load_n(&rt.park(t).context, __ATOMIC_ACQUIRE) : nullptr;
      all = c && __atomic_load_n(&c->valid, __ATOMIC_ACQUIRE);
    }
    if (all) break;
    if (now_ns() > deadline) {
      fail("a thread did not park");
      return Taken::Original;
    }
    sched_yield();
  }
  // (The pool's idle and ended threads are not the program's: ThreadPool.h.
  // A restore does not recreate them; a slot's thread is recreated when
  // its slot is taken.)
  if (count_tasks() != __builtin_popcountll(others) + 1 + thread_pool::idle_threads()) {
    fail("the process has threads ctrl does not control");
    return Taken::Original;
  }
  for (auto& r : snapshot->threads) r.present = false;
  for (uint64_t m = others | (uint64_t(1) << me); m; m &= m - 1) {
    uint32_t t = uint32_t(__builtin_ctzll(m));
    ThreadRecord& r = snapshot->threads[t];
    r = ThreadRecord{};
    r.fs_base = rt.park(t).fs_base;
    r.altstack = rt.park(t).altstack;
    r.present = true;
    r.tid = t == me ? pid_t(sys(SYS_gettid)) : h->threads[t].tid;
    if (r.fs_base == 0 || *tid_word_of(r.fs_base) != r.tid) {
      fail("a thread's descriptor does not hold its tid");
      return Taken::Original;
    }
    if (sys(SYS_get_robust_list, t == me ? 0 : r.tid, &r.robust_head, &r.robust_len) != 0) r.robust_head = nullptr;
    SignalState signals;
    if (signal_state(r.tid, signals)) {
      r.sigmask = signals.blocked;
      r.pending = signals.pending;
      snapshot->shared_pending = signals.shared;
    } else {
      fail("cannot read a thread's signal mask");
      return Taken::Original;
    }
    if (t != me) r.context = *rt.park(t).context;
  }
  uint32_t slot = shm::kMaxCheckpoints;
  for (uint32_t s = 0; s < shm::kMaxCheckpoints && slot == shm::kMaxCheckpoints; ++s) {
    uint32_t free_state = uint32_t(shm::CheckpointState::Free);
    if (h->checkpoints[s].state.compare_exchange_strong(free_state, uint32_t(shm::CheckpointState::Taken))) slot = s;
  }
  if (slot == shm::kMaxCheckpoints) {
    fail("every checkpoint slot is taken");
    return Taken::Original;
  }
  record_files();
  snapshot->me = me;
  snapshot->step = step;
  snapshot->fork_server = fork_server;
  snapshot->slot = slot;
  snapshot->journal_mark = journal::mark();
  shm::CheckpointSlot& s = h->checkpoints[slot];
  s.command.store(0, std::memory_order_relaxed);
  s.restored_pid.store(0, std::memory_order_relaxed);
  s.step = step;
  s.execution = h->execution;
  // As glibc's fork: no signal handler runs in the child before it is set up.
  sigset_t all, saved;
  sigfillset(&all);
  sys(SYS_rt_sigprocmask, SIG_SETMASK, &all, &saved, 8);
  long child = sys(SYS_clone, kProcessFlags, nullptr, nullptr, tid_word_of(snapshot->threads[me].fs_base), 0);
  if (child == 0) {
    Taken taken = serve(s);
    sys(SYS_rt_sigprocmask, SIG_SETMASK, &saved, nullptr, 8);
    return taken;
  }
  sys(SYS_rt_sigprocmask, SIG_SETMASK, &saved, nullptr, 8);
  if (child < 0) {
    s.state.store(uint32_t(shm::CheckpointState::Free), std::memory_order_release);
    fail("clone failed");
    return Taken::Original;
  }
  s.pid = int32_t(child);
  h->checkpoint_result = int32_t(slot);
  return Taken::Original;
}

}  // namespace ctrl::agent::live_checkpoint
