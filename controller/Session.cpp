#include "Session.h"

#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "Backtracer.h"
#include "ExitStatus.h"
#include "Framing.h"
#include "HangWatch.h"
#include "Symbolizer.h"
#include "control.pb.h"

namespace ctrl {

namespace {

// The unfinished threads' pending operations, when the agent recorded them
// for this execution: it ended by a process exit or was cut.
void take_pending(const shm::Header& h, ExecutionResult& r) {
  bool exited = !r.events.empty() && OpKind(r.events.back().kind) == OpKind::ProcessExit;
  if (!exited && r.end != ExecutionResult::End::StepBound) return;
  r.pending.assign(h.pending, h.pending + std::min(h.npending, shm::kMaxThreads));
}

}  // namespace


namespace {

// Fixed descriptor numbers in the target, so its environment is byte-for-byte
// the same in every run (stack addresses depend on it).
constexpr int kTargetControlFd = 900;
constexpr int kTargetRegionFd = 901;
constexpr int kTargetSitesFd = 902;

bool crash_signal(int sig) {
  switch (sig) {
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGABRT:
    case SIGSYS:
    case SIGTRAP:
    case SIGQUIT:
      return true;
    default:
      return false;
  }
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : fmt::format("signal {}", sig);
}

std::string fault_description(int sig, uint64_t addr) {
  switch (sig) {
    case SIGSEGV:
      return fmt::format("{}: invalid memory access at address {:#x}{}", signal_name(sig), addr,
                         addr < 4096 ? " (null pointer dereference)" : "");
    case SIGBUS:
      return fmt::format("{}: bus error at address {:#x}", signal_name(sig), addr);
    case SIGFPE:
      return fmt::format("{}: arithmetic exception at {:#x}", signal_name(sig), addr);
    case SIGILL:
      return fmt::format("{}: illegal instruction at {:#x}", signal_name(sig), addr);
    default:
      return fmt::format("{}: {}", signal_name(sig), strsignal(sig));
  }
}

pid_t tgid_of(pid_t tid) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Tgid:", 0) == 0) return pid_t(std::stol(line.substr(5)));
  return 0;
}

pid_t ppid_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("PPid:", 0) == 0) return pid_t(std::stol(line.substr(5)));
  return 0;
}

}  // namespace

Session::Session(SessionConfig config)
    : config_(std::move(config)), region_(config_.max_steps + 1), backtracer_(std::make_unique<Backtracer>()) {}

const std::vector<int>& Session::usable_cpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> list;
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask)) list.push_back(c);
    return list;
  }();
  return cpus;
}

void Session::place_runner() {
  // After the launch: the program's start-up sees the affinity ctrl had.
  usable_cpus();
  cpu_set_t mask;
  if (!config_.in_place || config_.runner_cpu == -1 || sched_getaffinity(0, sizeof mask, &mask) != 0) return;
  // A helper session's thread inherited its creator's pin: any usable CPU.
  for (int c : usable_cpus()) CPU_SET(c, &mask);
  // Where this thread runs now: two ctrl running side by side (a test
  // suite) then tend to take different CPUs.
  int cpu = config_.runner_cpu >= 0 ? config_.runner_cpu : sched_getcpu();
  if (cpu < 0 || !CPU_ISSET(cpu, &mask)) return;
  runner_cpu_ = cpu;
  // This thread joins it: the runner and the controller hand the turn to
  // each other at every execution, and a wake-up on the same CPU costs a
  // tenth of one across CPUs on this project's machines (spinning instead
  // is worse still in a virtual machine).
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}

Session::~Session() {
  if (template_pid_ > 0) {
    release_inspection();
    if (current_pid_ > 0 && current_pid_ != template_pid_) kill(current_pid_, SIGKILL);
    stop_fork_server();
    kill(template_pid_, SIGKILL);
    // Reap what is left so nothing outlives the session.
    for (;;) {
      int status;
      pid_t p = waitpid(-1, &status, __WALL | __WNOTHREAD);
      if (p < 0 && errno != EINTR) break;
      if (p == template_pid_ && (WIFEXITED(status) || WIFSIGNALED(status))) break;
    }
  }
  if (control_fd_ >= 0) close(control_fd_);
}

Symbolizer& Session::symbolizer() {
  if (!symbolizer_) symbolizer_ = std::make_unique<Symbolizer>(template_pid_);
  return *symbolizer_;
}

std::optional<ExecutionResult> Session::start() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw InternalError(std::string("socketpair: ") + strerror(errno));
  control_fd_ = sv[0];

  LaunchSpec spec;
  spec.path = config_.program;
  spec.argv.push_back(config_.program);
  spec.argv.insert(spec.argv.end(), config_.args.begin(), config_.args.end());
  std::string user_preload, user_tunables;
  bool bind_now = false;
  for (const auto& e : config_.env) {
    if (e.rfind("LD_PRELOAD=", 0) == 0)
      user_preload = e.substr(11);
    else if (e.rfind("GLIBC_TUNABLES=", 0) == 0)
      user_tunables = e.substr(15);
    else
      spec.env.push_back(e);
    if (e.rfind("LD_BIND_NOW=", 0) == 0) bind_now = true;
  }
  // Work every execution would otherwise redo after the fork: resolving lazy
  // PLT slots, and a malloc arena (mapped and faulted in) per new thread.
  // Neither changes what the program computes. The user's tunables come
  // last, so theirs win.
  if (!bind_now) spec.env.push_back("LD_BIND_NOW=1");
  // The stacks the agent primes at the checkpoint stay in libc's cache
  // (agent: Runtime::prime_thread_stacks), however large.
  spec.env.push_back("GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.pthread.stack_cache_size=4294967296" +
                     (user_tunables.empty() ? "" : ":" + user_tunables));
  // Tests: a kernel without what executions in place need (agent/Rollback.h).
  if (getenv("CTRL_TEST_NO_UFFD")) spec.env.push_back("CTRL_TEST_NO_UFFD=1");
  spec.env.push_back("CTRL_CONTROL_FD=" + std::to_string(kTargetControlFd));
  spec.env.push_back("CTRL_REGION_FD=" + std::to_string(kTargetRegionFd));
  spec.env.push_back("LD_PRELOAD=" + config_.agent + (user_preload.empty() ? "" : ":" + user_preload));
  spec.cwd = config_.cwd;
  spec.fds = {{sv[1], kTargetControlFd}, {region_.fd(), kTargetRegionFd}};
  if (config_.sites_fd >= 0) {
    spec.env.push_back("CTRL_SITES_FD=" + std::to_string(kTargetSitesFd));
    spec.fds.push_back({config_.sites_fd, kTargetSitesFd});
  }
  spec.quiet = !config_.show_output;

  template_pid_ = tracer_.launch(spec);
  close(sv[1]);
  current_pid_ = template_pid_;
  traced_execution_ = true;
  ended_ = false;

  bool checkpointed = false;
  ExecutionResult r = supervise_startup(checkpointed);
  if (checkpointed) {
    current_pid_ = 0;
    symbolizer();
    release_fork_server();
    place_runner();
    return std::nullopt;
  }
  r.before_checkpoint = true;
  r.execution = 0;
  if (!hello_ && r.end != ExecutionResult::End::Interrupted)
    throw UsageError("the program ran without ctrl's agent (setuid, or it cleared LD_PRELOAD): it cannot be controlled");
  template_pid_ = 0;
  current_pid_ = 0;
  return r;
}

ExecutionResult Session::run(const ExecutionPlan& plan, uint64_t index, const std::vector<shm::Signature>& expected) {
  region_.prepare(plan, index, config_.max_steps, expected, config_.show_output, config_.model);
  backtracer_->flush();
  execution_ = index;
  traced_execution_ = false;
  ended_ = false;
  // Release the next spare (forked in advance; see control.proto). Its
  // ExecutionStarted may come later, even after its own messages.
  auto& released = region_.header().released;
  ticket_ = released.fetch_add(1, std::memory_order_release) + 1;
  current_pid_ = 0;
  while (!spares_.empty() && spares_.front().first < ticket_) spares_.pop_front();
  if (!spares_.empty() && spares_.front().first == ticket_) current_pid_ = spares_.front().second;
  // A runner that rolled back waits for exactly this ticket: no message.
  reused_runner_ = config_.in_place && runner_pid_ > 0;
  if (reused_runner_) current_pid_ = runner_pid_;
  runner_pid_ = 0;
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&released), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  if (!reused_runner_) send_run(index);
  ExecutionResult r = supervise_execution();
  r.execution = index;
  if (r.end != ExecutionResult::End::Paused) current_pid_ = 0;
  return r;
}

void Session::send_run(uint64_t index) {
  proto::ControlMessage m;
  m.mutable_run()->set_execution(index);
  m.mutable_run()->set_ticket(ticket_);
  m.mutable_run()->set_in_place(config_.in_place);
  m.mutable_run()->set_cpu(config_.in_place ? runner_cpu_ : -1);
  m.mutable_run()->set_spread(config_.in_place && config_.spread);
  if (!framing::send_message(control_fd_, m)) throw InternalError("the target's fork server is gone");
  ++runner_stats_.runners;
}

ExecutionResult Session::resume(shm::StepCommand command) {
  if (!paused_) throw InternalError("no paused execution to resume");
  release_inspection();
  paused_ = false;
  shm::Header& h = region_.header();
  h.command = command;
  h.reply.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&h.reply), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  ExecutionResult r = supervise_execution();
  r.execution = execution_;
  if (r.end != ExecutionResult::End::Paused) current_pid_ = 0;
  return r;
}

void Session::abandon() {
  if (!paused_ || current_pid_ <= 0) return;
  paused_ = false;
  // Threads seized for inspection die with the process; their exits are
  // reaped by kill_execution's wait loop.
  inspected_.clear();
  kill_execution();
  current_pid_ = 0;
}

// ---- live checkpoints ----

int Session::take_checkpoint(std::string& error) {
  if (!paused_) throw InternalError("no paused execution to take a checkpoint of");
  shm::Header& h = region_.header();
  h.checkpoint_result = -1;
  h.checkpoint_error[0] = 0;
  // The agent takes it where it waits and pauses again (StepCommand::Checkpoint).
  ExecutionResult r = resume(shm::StepCommand::Checkpoint);
  if (r.end != ExecutionResult::End::Paused)
    throw InternalError("the paused execution ended while it took a checkpoint");
  if (h.checkpoint_result < 0) error = h.checkpoint_error;
  return h.checkpoint_result;
}

ExecutionResult Session::restore_checkpoint(int slot, const ExecutionPlan& plan, uint64_t index,
                                            const std::vector<shm::Event>& events,
                                            const std::vector<shm::Signature>& expected) {
  return restore_checkpoint(slot, plan, index, events.data(), events.size(), expected);
}

ExecutionResult Session::restore_checkpoint(int slot, const ExecutionPlan& plan, uint64_t index,
                                            const shm::Event* events, uint64_t count,
                                            const std::vector<shm::Signature>& expected) {
  shm::Header& h = region_.header();
  if (slot < 0 || slot >= int(shm::kMaxCheckpoints) ||
      h.checkpoints[slot].state.load() != uint32_t(shm::CheckpointState::Taken) || h.checkpoints[slot].pid <= 0)
    throw InternalError(fmt::format("no live checkpoint in slot {}", slot));
  shm::CheckpointSlot& s = h.checkpoints[slot];
  abandon();
  region_.prepare(plan, index, config_.max_steps, expected, config_.show_output, config_.model);
  uint64_t n = std::min<uint64_t>(count, region_.capacity());
  std::copy_n(events, n, region_.view().events);
  h.steps.store(n);
  backtracer_->flush();
  execution_ = index;
  traced_execution_ = false;
  ended_ = false;
  current_pid_ = 0;
  s.restored_pid.store(0);
  s.command.store(uint32_t(shm::CheckpointCommand::Restore), std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&s.command), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  // The checkpoint process answers with the new process's pid (a shared futex).
  for (;;) {
    int32_t pid = s.restored_pid.load(std::memory_order_acquire);
    if (pid < 0) throw InternalError(fmt::format("the live checkpoint in slot {} could not fork", slot));
    if (pid > 0) {
      current_pid_ = pid;
      break;
    }
    timespec wait{0, 100 * 1000 * 1000};
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&s.restored_pid), FUTEX_WAIT, 0, &wait, nullptr, 0);
    if (should_stop()) return interrupted_result();
    if (kill(s.pid, 0) != 0) throw InternalError(fmt::format("the live checkpoint in slot {} is gone", slot));
  }
  ExecutionResult r = supervise_execution();
  r.execution = index;
  if (r.end != ExecutionResult::End::Paused) current_pid_ = 0;
  return r;
}

void Session::drop_checkpoint(int slot) {
  if (slot < 0 || slot >= int(shm::kMaxCheckpoints)) return;
  shm::CheckpointSlot& s = region_.header().checkpoints[slot];
  if (s.state.load() != uint32_t(shm::CheckpointState::Taken)) return;
  s.command.store(uint32_t(shm::CheckpointCommand::Drop), std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&s.command), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

void Session::inspect() {
  if (!paused_ || !inspected_.empty()) return;
  for (pid_t t : threads_of(current_pid_)) {
    if (ptrace(PTRACE_SEIZE, t, nullptr, PTRACE_O_EXITKILL) != 0) continue;
    if (!tracer_.interrupt(t)) continue;
    auto s = tracer_.wait_for(t);
    if (!s || s->exited()) continue;
    inspected_.push_back(t);
  }
  backtracer_->flush();
  symbolizer().snapshot_regions(current_pid_);
}

void Session::release_inspection() {
  // A thread interrupted in a futex wait restarts it when detached.
  for (pid_t t : inspected_) ptrace(PTRACE_DETACH, t, nullptr, nullptr);
  inspected_.clear();
}

void Session::stop_fork_server() {
  // Asked to stop, the fork server removes the links it kept to undo the
  // last execution's file changes (FileJournal.h), or after a bug undoes
  // them, so that a replay starts from the checkpoint's files; killed, it
  // could do neither.
  if (control_fd_ < 0 || current_pid_ == template_pid_) return;
  proto::ControlMessage m;
  m.mutable_stop()->set_restore_files(found_bug_);
  if (!framing::send_message(control_fd_, m)) return;
  // Its end of the channel closes when it (and its spare, which dies with
  // it) exits; what it still says meanwhile is of no interest.
  for (int i = 0; i < 100; ++i) {
    pollfd pfd{control_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 10) <= 0) continue;
    if (pfd.revents & (POLLHUP | POLLERR)) return;
    char buf[256];
    if (recv(control_fd_, buf, sizeof buf, MSG_DONTWAIT) == 0) return;
  }
}

bool Session::follow_forked_child() {
  // The program forked before its first thread and this process ended: a
  // child still alive may yet create threads (daemon(), or the work done
  // in a child). Our tracees are the launched process's descendants.
  pid_t me = getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    std::string line;
    bool zombie = false;
    pid_t tracer = 0;
    while (std::getline(status, line)) {
      if (line.rfind("State:", 0) == 0) zombie = line.find('Z') != std::string::npos;
      if (line.rfind("TracerPid:", 0) == 0) tracer = pid_t(std::stol(line.substr(10)));
    }
    if (tracer == me && !zombie) {
      if (current_pid_ == template_pid_) template_pid_ = 0;  // reaped: the template is gone
      current_pid_ = pid_t(std::stol(name));
      return true;
    }
  }
  return false;
}

void Session::adopt_fork_server(pid_t pid) {
  if (pid <= 0 || pid == template_pid_) return;
  // Not the launched process: a child it forked (see follow_forked_child).
  template_pid_ = pid;
  adopted_fork_server_ = true;
}

void Session::release_fork_server() {
  // From here the fork server only forks executions: untraced, it costs no
  // ptrace stop per execution (fork event, the child's first stop, SIGCHLD).
  // It still dies with ctrl (PR_SET_PDEATHSIG from its launch survives exec)
  // and its executions die with it (they set it too).
  if (ptrace(PTRACE_INTERRUPT, template_pid_, nullptr, nullptr) != 0) return;
  auto s = tracer_.wait_for(template_pid_);
  if (!s || s->exited()) throw InternalError("the target's fork server died");
  // A signal on its way in is delivered with the detach.
  int signal = s->event() == 0 && s->signal_stop() ? s->signal() : 0;
  if (adopted_fork_server_) {
    // A forked child has no parent-death signal tied to ctrl (its parent
    // may be gone): it stays traced, with EXITKILL only, so that it dies
    // with ctrl yet stops for nothing it does (its executions are not
    // attached; SIGCHLD is read from a signalfd, never delivered).
    ptrace(PTRACE_SETOPTIONS, template_pid_, nullptr, reinterpret_cast<void*>(long(PTRACE_O_EXITKILL)));
    tracer_.resume(template_pid_, signal);
    return;
  }
  ptrace(PTRACE_DETACH, template_pid_, nullptr, reinterpret_cast<void*>(long(signal)));
}

std::optional<proto::ControlMessage> Session::read_message() {
  pollfd pfd{control_fd_, POLLIN, 0};
  if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & (POLLIN | POLLHUP))) return std::nullopt;
  proto::ControlMessage m;
  if (!framing::receive_message(control_fd_, m)) {
    if (template_pid_ == 0 || current_pid_ == template_pid_) return std::nullopt;  // the template is exiting
    throw InternalError("the control channel to the target broke");
  }
  if (m.has_error()) throw InternalError("agent: " + m.error().message());
  if (m.has_notice()) {
    fmt::print(stderr, "ctrl: warning: {}\n", m.notice().text());
    return read_message();
  }
  return m;
}

void Session::handle_startup_message(const proto::ControlMessage& m, bool& checkpointed) {
  if (m.has_hello()) {
    if (m.hello().protocol_version() != 1)
      throw InternalError(fmt::format("agent speaks protocol {}, ctrl speaks 1", m.hello().protocol_version()));
    hello_ = true;
  } else if (m.has_checkpoint_ready()) {
    checkpointed = true;
    adopt_fork_server(m.checkpoint_ready().pid());
  }
}

bool Session::is_execution_thread(pid_t tid) const { return current_pid_ > 0 && tgid_of(tid) == current_pid_; }

uint32_t Session::thread_index(pid_t tid) const {
  const shm::Header& h = region_.header();
  for (uint32_t t = 0; t < std::min(h.nthreads, shm::kMaxThreads); ++t)
    if (h.threads[t].tid == tid) return t;
  // The main thread is T0, also before the checkpoint, when no tid is
  // published yet.
  if (tid == current_pid_) return 0;
  return UINT32_MAX;
}

std::string Session::thread_state(uint32_t t) const {
  const shm::Header& h = region_.header();
  if (t >= shm::kMaxThreads) return "not controlled by ctrl";
  const shm::ThreadSlot& s = h.threads[t];
  auto kind = OpKind(s.pending_kind);
  switch (s.status) {
    case shm::ThreadStatus::Finished:
      return "finished";
    case shm::ThreadStatus::Blocked: {
      std::string what = fmt::format("blocked in {}", op_name(kind));
      if (s.pending_addr) what += " on " + symbolizer_->describe_data(s.pending_addr);
      if (s.waits_for_thread < shm::kMaxThreads) what += fmt::format(" (waits for T{})", s.waits_for_thread);
      return what;
    }
    default:
      if (t == h.current) return "running";
      return fmt::format("parked before {}", op_name(kind));
  }
}

void Session::resume_other(const Stop& s) {
  if (s.exited()) return;
  int sig = 0;
  if (s.signal_stop()) sig = s.signal();
  tracer_.resume(s.tid, sig);
}

void Session::seize_execution() {
  if (traced_execution_) return;
  // Attach to every thread; threads cannot appear meanwhile: all are parked.
  for (pid_t t : threads_of(current_pid_)) {
    if (ptrace(PTRACE_SEIZE, t, nullptr, PTRACE_O_EXITKILL) != 0) continue;
  }
  traced_execution_ = true;
}

void Session::collect_backtraces(ExecutionResult& r, pid_t stopped_tid) {
  pid_t pid = current_pid_;
  // In a traced process the thread that reported the bug already sits in a
  // ptrace stop; in a just-seized execution every thread must be stopped.
  bool already_stopped = traced_execution_;
  seize_execution();
  auto tids = threads_of(pid);
  auto needs_stop = [&](pid_t t) { return !already_stopped || t != stopped_tid; };
  for (pid_t t : tids)
    if (needs_stop(t)) tracer_.interrupt(t);
  for (pid_t t : tids) {
    if (!needs_stop(t)) continue;
    // Any stop will do; a pending signal may come first.
    auto s = tracer_.wait_for(t);
    if (!s || s->exited()) continue;
  }
  // Before the checkpoint (a crash or hang in start-up) there is no
  // symbolizer yet: the template is the process to describe.
  symbolizer().snapshot_regions(pid);
  for (pid_t t : tids) {
    ThreadBacktrace bt;
    bt.tid = t;
    bt.thread = thread_index(t);
    bool at_bug = r.thread < shm::kMaxThreads ? bt.thread == r.thread : t == stopped_tid;
    bt.state = at_bug ? "at the bug" : thread_state(bt.thread);
    bt.frames = backtracer_->unwind(t);
    r.backtraces.push_back(std::move(bt));
  }
  std::sort(r.backtraces.begin(), r.backtraces.end(),
            [](const ThreadBacktrace& a, const ThreadBacktrace& b) { return a.thread < b.thread; });
}

void Session::handle_ptrace_stop(const Stop& s) {
  if (s.exited()) {
    if (s.tid == template_pid_ && current_pid_ != template_pid_) {
      template_pid_ = 0;
      throw InternalError("the target's fork server died");
    }
    return;
  }
  int event = s.event();
  if (event == PTRACE_EVENT_STOP && s.tid != template_pid_ && !is_execution_thread(s.tid)) {
    pid_t tg = tgid_of(s.tid);
    if (tg == s.tid && ppid_of(tg) == template_pid_ && template_pid_ != current_pid_) {
      // A new execution, auto-attached by TRACEFORK: let it go untraced.
      ptrace(PTRACE_DETACH, s.tid, nullptr, nullptr);
      if (current_pid_ == 0) current_pid_ = tg;
      return;
    }
  }
  if (event != 0 || !s.signal_stop()) {
    tracer_.resume(s.tid);
    return;
  }
  tracer_.resume(s.tid, s.signal());
}

void Session::kill_execution() {
  pid_t pid = current_pid_;
  if (pid <= 0 || ended_) return;
  kill(pid, SIGKILL);
  if (pid == template_pid_) {
    // The template is our child and traced: reap it here.
    for (;;) {
      int status;
      pid_t p = waitpid(-1, &status, __WALL | __WNOTHREAD);
      if (p < 0 && errno != EINTR) break;
      if (p == pid && (WIFEXITED(status) || WIFSIGNALED(status))) break;
    }
    template_pid_ = 0;
    ended_ = true;
    return;
  }
  // An execution is the fork server's child: the fork server reaps it and
  // says so. Meanwhile the exits of threads we seized come to us.
  while (!ended_) {
    // Reaped already (its ExecutionEnded read by an earlier loop that was
    // not waiting for it): nothing is left to wait for.
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      ended_ = true;
      break;
    }
    auto stop = tracer_.wait(100, control_fd_);
    if (stop) {
      if (!stop->exited() && tgid_of(stop->tid) != pid) resume_other(*stop);
      else if (stop->exited() && stop->tid == template_pid_) throw InternalError("the target's fork server died");
      continue;
    }
    while (auto m = read_message()) {
      if (m->has_ended() && m->ended().pid() == pid) {
        ended_ = true;
        end_status_ = m->ended().status();
      }
      // A spare forked meanwhile: the next execution needs its pid (one that
      // ends by a raw exit says nothing but the fork server's ExecutionEnded).
      if (m->has_started() && uint32_t(m->started().execution()) > ticket_)
        spares_.emplace_back(uint32_t(m->started().execution()), m->started().pid());
    }
  }
}

ExecutionResult Session::finish_with_bug(ExecutionResult r, pid_t stopped_tid) {
  r.end = ExecutionResult::End::Bug;
  found_bug_ = true;
  const shm::Header& h = region_.header();
  r.events.assign(region_.view().events, region_.view().events + std::min(h.steps.load(), region_.capacity()));
  collect_backtraces(r, stopped_tid);
  kill_execution();
  return r;
}

ExecutionResult Session::outcome_from_agent(pid_t tid) {
  const shm::Header& h = region_.header();
  ExecutionResult r;
  r.thread = h.outcome_thread;
  r.site = h.outcome_site;
  r.message = h.message;
  r.stopped_tid = tid;
  switch (h.outcome) {
    case shm::Outcome::Assertion:
      r.kind = "assertion";
      return finish_with_bug(std::move(r), tid);
    case shm::Outcome::Abort:
      r.kind = "crash";
      r.message = "SIGABRT: abort() called";
      return finish_with_bug(std::move(r), tid);
    case shm::Outcome::Crash: {
      r.kind = "crash";
      r.message = fault_description(h.signal, h.fault_addr);
      if (r.thread < shm::kMaxThreads) r.message += fmt::format(" in T{}", r.thread);
      return finish_with_bug(std::move(r), tid);
    }
    case shm::Outcome::Deadlock: {
      r.kind = "deadlock";
      // Rebuild the message with symbols: who waits on what.
      std::string msg = "no thread can proceed:";
      for (uint32_t t = 0; t < std::min(h.nthreads, shm::kMaxThreads); ++t) {
        if (h.threads[t].status == shm::ThreadStatus::Finished) continue;
        msg += fmt::format(" T{} {};", t, thread_state(t));
      }
      msg.pop_back();
      r.message = msg;
      return finish_with_bug(std::move(r), tid);
    }
    case shm::Outcome::Hang: {
      r.kind = "hang";
      const shm::ThreadSlot& slot = h.threads[std::min(r.thread, shm::kMaxThreads - 1)];
      r.site = slot.await_site;
      r.message = fmt::format("T{} spins forever: it keeps re-reading {} at {}, and no other thread can write it",
                              r.thread, symbolizer().describe_data(slot.await_addr),
                              symbolizer().describe_code(slot.await_site));
      return finish_with_bug(std::move(r), tid);
    }
    case shm::Outcome::StepBound:
      r.end = ExecutionResult::End::StepBound;
      break;
    case shm::Outcome::SleepBlocked:
      r.end = ExecutionResult::End::Blocked;
      break;
    case shm::Outcome::Diverged:
      r.end = ExecutionResult::End::Diverged;
      break;
    case shm::Outcome::Unsupported:
      r.end = ExecutionResult::End::Unsupported;
      break;
    default:
      throw InternalError(fmt::format("agent stopped with outcome {}: {}", int(h.outcome), h.message));
  }
  r.events.assign(region_.view().events, region_.view().events + std::min(h.steps.load(), region_.capacity()));
  take_pending(h, r);
  if (attention_rolled_back_) {
    // The runner is putting itself back (agent/Rollback.h): it runs the
    // next execution.
    ended_ = true;
    runner_pid_ = current_pid_;
    ++runner_stats_.rolled_back;
    return r;
  }
  kill_execution();
  return r;
}

bool Session::should_stop() {
  return tracer_.poll_signals() || (deadline_ && std::chrono::steady_clock::now() >= *deadline_);
}

std::string Session::stop_reason() const {
  if (tracer_.interrupted()) return signal_name(tracer_.interrupted_by());
  return "the time limit";
}

ExecutionResult Session::interrupted_result() {
  const shm::Header& h = region_.header();
  ExecutionResult r;
  r.end = ExecutionResult::End::Interrupted;
  r.events.assign(region_.view().events, region_.view().events + std::min(h.steps.load(), region_.capacity()));
  kill_execution();
  return r;
}

ExecutionResult Session::supervise_startup(bool& checkpointed) {
  using clock = std::chrono::steady_clock;
  const shm::Header& h = region_.header();
  // Before the checkpoint the program runs natively, single-threaded (its
  // first pthread_create is the checkpoint): no visible operation, so no
  // --max-steps, but the same hang rule as in executions, on its main
  // thread, and the same stops.
  HangWatch watch(config_.hang_timeout);
  auto last_check = clock::time_point{};
  for (;;) {
    // Checked here, where no stop waits to be resumed, and not only when
    // the wait times out: a program that keeps stopping (signals, forks)
    // must not keep the checks away.
    if (clock::now() - last_check >= std::chrono::milliseconds(100)) {
      last_check = clock::now();
      if (should_stop()) return interrupted_result();
      if (auto hang = watch.check(template_pid_, 0, template_pid_, 0)) return hang_result(*hang, 0);
    }
    auto stop = tracer_.wait(100, control_fd_);
    if (!stop) {
      while (auto m = read_message()) {
        handle_startup_message(*m, checkpointed);
        if (checkpointed) return {};
      }
      continue;
    }
    const Stop& s = *stop;
    if (s.exited()) {
      if (s.tid != current_pid_) continue;
      if (follow_forked_child()) continue;
      ExecutionResult r;
      r.events.assign(region_.view().events, region_.view().events + std::min(h.steps.load(), region_.capacity()));
      if (WIFSIGNALED(s.status)) {
        r.end = ExecutionResult::End::Bug;
        r.kind = "crash";
        r.message = fmt::format("killed by {}", signal_name(WTERMSIG(s.status)));
      } else {
        r.exit_status = WEXITSTATUS(s.status);
      }
      ended_ = true;
      template_pid_ = 0;
      return r;
    }
    if (s.event() != 0 || !s.signal_stop()) {
      tracer_.resume(s.tid);
      continue;
    }
    int sig = s.signal();
    if (sig == SIGSTOP && h.attention.load()) return outcome_from_agent(s.tid);
    if (crash_signal(sig) && !catches_signal(s.tid, sig)) {
      siginfo_t info{};
      tracer_.siginfo(s.tid, info);
      ExecutionResult r;
      r.kind = "crash";
      r.thread = thread_index(s.tid);
      r.message = fault_description(sig, reinterpret_cast<uint64_t>(info.si_addr));
      r.stopped_tid = s.tid;
      r = finish_with_bug(std::move(r), s.tid);
      for (const auto& bt : r.backtraces)
        if (bt.tid == s.tid && !bt.frames.empty()) r.site = bt.frames.front() & ~Backtracer::kExactIp;
      return r;
    }
    tracer_.resume(s.tid, sig);
  }
}

ExecutionResult Session::supervise_execution() {
  const shm::Header& h = region_.header();
  HangWatch watch(config_.hang_timeout);

  for (;;) {
    auto stop = tracer_.wait(100, control_fd_);
    if (stop) {
      handle_ptrace_stop(*stop);
      continue;
    }
    while (auto m = read_message()) {
      // Earlier executions may still be exiting: their ExecutionEnded comes
      // late and is not this execution's. This one's own messages can come
      // before the fork server's ExecutionStarted for it.
      if (m->has_started()) {
        uint32_t ticket = uint32_t(m->started().execution());
        if (ticket == ticket_ && current_pid_ == 0) current_pid_ = m->started().pid();
        if (ticket > ticket_) spares_.emplace_back(ticket, m->started().pid());
      } else if (m->has_paused()) {
        if (current_pid_ == 0) current_pid_ = m->paused().pid();
        paused_ = true;
        ExecutionResult r;
        r.end = ExecutionResult::End::Paused;
        r.steps = std::min(h.steps.load(), region_.capacity());
        if (copy_paused_events_) r.events.assign(region_.view().events, region_.view().events + r.steps);
        return r;
      } else if (m->has_attention()) {
        if (current_pid_ == 0) current_pid_ = m->attention().pid();
        attention_rolled_back_ = m->attention().rolled_back();
        return outcome_from_agent(h.outcome_tid);
      } else if (m->has_finished()) {
        if (current_pid_ == 0) current_pid_ = m->finished().pid();
        ended_ = true;
        if (m->finished().rolled_back()) {
          runner_pid_ = m->finished().pid();
          ++runner_stats_.rolled_back;
        } else if (!m->finished().refusal().empty()) {
          ++runner_stats_.refusals[m->finished().refusal()];
        }
        // From now on a process per execution, forked in advance.
        if (m->finished().runners_unusable()) config_.in_place = false;
        ExecutionResult r;
        r.events.assign(region_.view().events, region_.view().events + std::min(h.steps.load(), region_.capacity()));
        take_pending(h, r);
        r.exit_status = m->finished().exit_status();
        return r;
      } else if (m->has_rollback_failed()) {
        // Counted as rolled back when it said ExecutionFinished: it was not.
        if (runner_stats_.rolled_back) --runner_stats_.rolled_back;
        ++runner_stats_.refusals["the rollback failed: " + m->rollback_failed().reason()];
      } else if (m->has_ended() && reused_runner_ && m->ended().pid() == current_pid_ &&
                 h.started.load(std::memory_order_acquire) == 0) {
        // The runner could not put itself back after the previous execution
        // (agent/Rollback.h, RollbackFailed said why): this one gets a new
        // runner.
        reused_runner_ = false;
        current_pid_ = 0;
        send_run(execution_);
      } else if (m->has_ended() && current_pid_ != 0 && m->ended().pid() == current_pid_) {
        ended_ = true;
        end_status_ = m->ended().status();
        ExecutionResult r;
        r.events.assign(region_.view().events, region_.view().events + std::min(h.steps.load(), region_.capacity()));
        if (WIFSIGNALED(end_status_)) {
          // A fatal signal the agent did not see (its handler was bypassed).
          r.end = ExecutionResult::End::Bug;
          r.kind = "crash";
          r.message = fmt::format("killed by {}", signal_name(WTERMSIG(end_status_)));
        } else {
          r.exit_status = WEXITSTATUS(end_status_);
          take_pending(h, r);
        }
        return r;
      }
    }
    // Stepping lets a step finish (it pauses again soon) and looks at the
    // signal itself; a hang still ends it below.
    if (defer_interrupts_)
      tracer_.poll_signals();  // kept for take_signal()
    else if (should_stop())
      return interrupted_result();
    if (current_pid_ <= 0) continue;
    // The thread holding the token is the one that must make progress.
    uint32_t current = h.current;
    pid_t tid = current < shm::kMaxThreads ? h.threads[current].tid : 0;
    if (tid <= 0) tid = current_pid_;
    if (auto hang = watch.check(current_pid_, current, tid, h.steps.load())) return hang_result(*hang, current);
  }
}

ExecutionResult Session::hang_result(const std::string& message, uint32_t thread) {
  ExecutionResult r;
  r.kind = "hang";
  r.thread = thread;
  r.message = message;
  r = finish_with_bug(std::move(r), 0);
  for (const auto& bt : r.backtraces)
    if (bt.thread == r.thread && !bt.frames.empty()) r.site = bt.frames.front() & ~Backtracer::kExactIp;
  return r;
}

bool Session::initialised_at_checkpoint(uint64_t addr) const {
  const shm::Header& h = *region_.view().header;
  if (h.initialised_overflow) return true;
  uint32_t n = std::min(h.ninitialised, shm::kMaxInitialised);
  for (uint32_t k = 0; k < n; k++)
    if (addr >= h.initialised[k].addr && addr - h.initialised[k].addr < h.initialised[k].size) return true;
  return false;
}

}  // namespace ctrl
