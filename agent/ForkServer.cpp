// The fork server and the start of an execution (Runtime.h): the checkpoint
// at the program's first thread creation, the loop that forks an execution
// (or a runner, Rollback.h) per RunExecution, and what a forked process does
// before the program goes on.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "CheckpointClaim.h"
#include "FileJournal.h"
#include "FileState.h"
#include "Framing.h"
#include "InstructionSites.h"
#include "LiveCheckpoint.h"
#include "OwnCalls.h"
#include "OwnPid.h"
#include "RawSyscall.h"
#include "ReadOnlyMemory.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "SanitizerRuntime.h"
#include "Signals.h"
#include "ThreadPool.h"
#include "VirtualClock.h"
#include "control.pb.h"

namespace ctrl::agent {

using own::sys;

bool Runtime::take_checkpoint(uint32_t me) {
  if (live_checkpoint::take(me, step_, fork_server_) == live_checkpoint::Taken::Original) return false;
  // A new process, restored: its pid is in the frames, its tids are
  // published; the controller prepared the region for it as for a new
  // execution (the events before step_ it wrote back itself).
  build_frames();
  shm::Header* h = region.header;
  stepping_ = h->policy == shm::TailPolicy::Ask;
  checkpoint_at_ = h->checkpoint_at;
  read_states = h->read_states != 0;
  rng_ = h->seed;
  pct_.reset(h->pct_depth, h->pct_change);
  pos_on_ = h->policy == shm::TailPolicy::Pos;
  if (pos_on_) pos_.reset(rng_);
  // The sleep set cannot be rebuilt: a plan restored from a checkpoint
  // starts its sleep set at or after the checkpoint.
  sleep_ = 0;
  alone_ = false;
  h->current = me;
  if (h->nthreads < model.thread_count()) h->nthreads = model.thread_count();
  h->outcome = shm::Outcome::Running;
  h->attention.store(0, std::memory_order_relaxed);
  h->steps.store(step_, std::memory_order_release);
  h->started.store(1, std::memory_order_release);
  return true;
}

void Runtime::start_execution(pid_t fork_server, bool resumed) {
  // Die with the fork server (and so with ctrl): executions are not traced.
  // (A rolled back runner did at its first execution: the parent-death
  // signal stays, and the runner died with the fork server if it is gone.)
  if (!resumed) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != fork_server) real._exit(0);
  }
  fork_server_ = fork_server;
  shm::Header* h = region.header;
  // (A runner built them before its snapshot: they are in its memory.)
  if (!resumed) build_frames();
  stepping_ = h->policy == shm::TailPolicy::Ask;
  checkpoint_at_ = h->checkpoint_at;
  read_states = h->read_states != 0;
  // The dispositions of the managed signals are the agent's in a runner
  // rolled back (the program's calls only reach its records, which the
  // rollback restores) and the mask it restores unblocks them: nothing to do.
  if (!resumed) install_execution_signal_handlers();
  // (The mask a rollback resumes with unblocks the managed signals.)
  live_checkpoint::thread_started(0, prepare_thread_signals(0, resumed));
  active = true;
  ended = false;
  step_ = 0;
  current_ = 0;
  last_ = 0;
  rng_ = h->seed;
  pct_.reset(h->pct_depth, h->pct_change);
  pos_on_ = h->policy == shm::TailPolicy::Pos;
  if (pos_on_) pos_.reset(rng_);
  sleep_ = 0;
  alone_ = false;
  last_enabled_ = 0;
  yielding_ = 0;
  unstarted_ = 0;
  ends_anywhere_ = 0;
  fair_.reset(pct_.writes_only);  // PCT's write points: the weaker yield rule
  memory = &memory_model_for(h->model);
  memory->reset();
  for (auto& p : park_) p.go.store(kWaiting, std::memory_order_relaxed);
  carriers_ = carriers_allowed();
  carried_ = 0;
  for (uint32_t t = 0; t < shm::kMaxThreads; ++t) home_of_[t] = carrier_of_[t] = kNoCarrier;
  for (auto& h : home_) h.store(kHomeIdle, std::memory_order_relaxed);
  // The main thread's home is the runner's main kernel thread.
  home_of_[0] = carrier_of_[0] = 0;
  carrier_fs_[0] = uint64_t(pthread_self());
  region.header->current_tid = 0;
  for (uint32_t t = 0; t < model.thread_count(); ++t) publish(t);
  // (The main thread of a runner is the process.)
  publish_tid(0, resumed ? own_pid() : 0);
  carrier_tid_[0] = region.header->threads[0].tid;
  // The previous execution is over (released after it): put the files
  // back as they were at the checkpoint.
  file_state::start_execution();
  sanitizer::start_execution();
  virtual_clock::start_execution();
  // A runner did it once, before its snapshot (the descriptors it keeps).
  if (!in_place_) discard_output();
  h->started.store(1, std::memory_order_release);
}

void Runtime::wait_for_release(uint32_t ticket) {
  auto* released = reinterpret_cast<uint32_t*>(&region.header->released);
  for (uint32_t r; int32_t((r = __atomic_load_n(released, __ATOMIC_ACQUIRE)) - ticket) < 0;)
    sys(SYS_futex, released, FUTEX_WAIT, r, nullptr, nullptr, 0);
}

void Runtime::discard_output() {
  if (region.header->target_output != 0) return;
  // A stdout or stderr the program pointed at a regular file itself before
  // its threads (sort -o, freopen) is its result, not noise: it stays
  // (FileState puts it back for each execution).
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  struct stat st;
  if (null >= 0) {
    for (int fd = 1; fd <= 2; ++fd)
      if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) dup2(null, fd);
    close(null);
  }
}

void Runtime::prime_thread_stacks() {
  // All alive at once, so that each gets a stack of its own; joined, their
  // stacks go to libc's cache (Session raises its size limit).
  constexpr int kStacks = 8;
  static std::atomic<uint32_t> gate{0};
  auto body = [](void*) -> void* {
    while (gate.load(std::memory_order_acquire) == 0)
      raw_syscall(SYS_futex, reinterpret_cast<long>(&gate), FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
    return nullptr;
  };
  pthread_t threads[kStacks];
  int n = 0;
  for (; n < kStacks; ++n)
    if (real.pthread_create(&threads[n], nullptr, body, nullptr) != 0) break;
  gate.store(1, std::memory_order_release);
  raw_syscall(SYS_futex, reinterpret_cast<long>(&gate), FUTEX_WAKE_PRIVATE, INT32_MAX, 0, 0, 0);
  for (int i = 0; i < n; ++i) real.pthread_join(threads[i], nullptr);
}

void Runtime::checkpoint(uint64_t site) {
  AgentScope scope;
  checkpointed = true;
  virtual_clock::checkpoint();
  if (!claim_checkpoint()) {
    // Another process of the program is the fork server: this one goes on
    // without ctrl.
    enabled = false;
    real.close(control_fd);
    control_fd = -1;
    return;
  }
  fflush(nullptr);  // or buffered output would be written once per execution
  file_state::checkpoint();
  // The agent's own code may run patched program code from here on: a
  // program that exports a library's template instances (std::string's
  // members, say) is where the dynamic linker binds the agent's calls to
  // them. Their int3 sites then trap in the fork server too, and must find
  // the handler that steps over them (no execution: nothing is visible).
  install_execution_signal_handlers();
  // Sites trap from here on: the single-threaded start-up ran natively.
  if (const char* err = sites.patch()) {
    proto::ControlMessage m;
    m.mutable_error()->set_message(err);
    framing::send_message(control_fd, m);
    real._exit(112);
  }
  prime_thread_stacks();
  thread_pool::reserve();
  reserve_alternate_stacks();
  read_only_memory::record();
  proto::ControlMessage ready;
  ready.mutable_checkpoint_ready()->set_pid(getpid());
  ready.mutable_checkpoint_ready()->set_site(site);
  if (!framing::send_message(control_fd, ready)) real._exit(112);
  // Executions end without waiting for their process to be torn down (see
  // execution_finished): they are reaped here as they go, SIGCHLD arriving
  // through a signalfd, while the next ones run.
  sigset_t chld, saved_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  real.pthread_sigmask(SIG_BLOCK, &chld, &saved_mask);
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) real._exit(112);
  // Processes still exiting, at most: more would only compete for the CPUs.
  constexpr int kMaxExiting = 3;
  int alive = 0;    // children not reaped yet
  int waiting = 0;  // of which a spare waiting for its release
  uint32_t forked = 0;
  // The executions forked here. Live checkpoints and the processes restored
  // from them are children too (CLONE_PARENT, LiveCheckpoint.h): they are
  // reaped and reported alike, but are not counted as exiting executions.
  constexpr int kMaxKids = 2 * kMaxExiting + 4;
  pid_t kids[kMaxKids] = {};
  auto reap = [&](bool block) {
    for (;;) {
      int status = 0;
      pid_t child = waitpid(-1, &status, __WALL | (block ? 0 : WNOHANG));
      if (child < 0 && errno == EINTR) continue;
      if (child <= 0) return;
      for (pid_t& k : kids)
        if (k == child) {
          k = 0;
          --alive;
          break;
        }
      proto::ControlMessage ended;
      ended.mutable_ended()->set_pid(child);
      ended.mutable_ended()->set_status(status);
      if (!framing::send_message(control_fd, ended)) real._exit(112);
      if (block) return;
    }
  };
  for (;;) {
    pollfd fds[2] = {{control_fd, POLLIN, 0}, {sfd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      real._exit(112);
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) == ssize_t(sizeof info)) {
      }
      reap(false);
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP))) continue;
    proto::ControlMessage m;
    if (!framing::receive_message(control_fd, m) || m.has_stop()) {
      // The session is over: the last execution's file changes stay, unless
      // a bug was found (the controller has seen every execution end).
      if (m.has_stop() && m.stop().restore_files())
        file_state::restore_at_end();
      else
        journal::commit();
      real._exit(0);
    }
    if (!m.has_run()) continue;
    // The released execution (forked now if no spare was waiting), then a
    // spare for the next one: its fork runs while this execution does. In
    // place: the runner of this ticket alone.
    bool in_place = m.run().in_place();
    // Tickets follow the controller's (a runner took several without the
    // fork server's knowing): with no spare waiting, the first process
    // forked now is the released execution's.
    if (!waiting && m.run().ticket() != 0) forked = m.run().ticket() - 1;
    for (int k = in_place ? 1 : waiting ? 1 : 2; k > 0; --k) {
      while (alive - waiting >= kMaxExiting + 1) reap(true);
      uint32_t ticket = ++forked;
      pid_t server = getpid();
      pid_t child = _Fork();
      if (child == 0) {
        bool resumed = false;
        close(sfd);
        real.pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != server) real._exit(0);
        if (in_place) {
          in_place_ = true;
          // (Pinned first: its threads are then pinned too.)
          rollback::pin_to_cpu(m.run().cpu());
          // On one CPU a waiting thread that yields only runs another
          // waiting one: each hand-off is one sleep and one wake-up (and,
          // a batch task, the woken thread does not preempt its waker).
          spin_yield = 0;
          if (m.run().spread()) rt.allow_spread();
          // (Any it could not recreate is recreated in the execution, which
          // then cannot be rolled back: ThreadPool.h.)
          thread_pool::start_runner();
          discard_output();
          build_frames();
          // Returns again (true) after each rollback, at the next ticket.
          resumed = rollback::arm_runner(ticket, control_fd);
          if (resumed || rollback::armed()) ticket = rollback::ticket();
        }
        wait_for_release(ticket);
        start_execution(server, resumed);
        return;
      }
      if (child < 0) {
        proto::ControlMessage error;
        error.mutable_error()->set_message(std::string("fork failed: ") + strerror(errno));
        framing::send_message(control_fd, error);
        real._exit(112);
      }
      ++alive;
      for (pid_t& k : kids)
        if (k == 0) {
          k = child;
          break;
        }
      proto::ControlMessage started;
      started.mutable_started()->set_pid(child);
      started.mutable_started()->set_execution(ticket);
      if (!framing::send_message(control_fd, started)) real._exit(112);
    }
    waiting = in_place ? 0 : 1;
  }
}

}  // namespace ctrl::agent
