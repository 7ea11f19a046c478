#include "session/Tracer.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "cli/ExitStatus.h"
#include "session/StopSignals.h"

namespace ctrl {

bool Stop::exited() const { return WIFEXITED(status) || WIFSIGNALED(status); }
bool Stop::signal_stop() const {
  return WIFSTOPPED(status) && (status >> 16) == 0 && WSTOPSIG(status) != (SIGTRAP | 0x80);
}
int Stop::signal() const { return WIFSIGNALED(status) ? WTERMSIG(status) : WIFSTOPPED(status) ? WSTOPSIG(status) : 0; }
int Stop::event() const { return WIFSTOPPED(status) ? (status >> 16) : 0; }

namespace {
thread_local bool helper_thread = false;
}  // namespace

namespace {

// What a process that another tracer holds is told (ctrl run under
// `strace -f` or a debugger that follows forks).
const char* const kAlreadyTraced =
    "it is already traced by another process (is ctrl itself run under strace -f or a debugger that follows "
    "forks?): ctrl must be its only tracer";

}  // namespace

bool is_zombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  // "pid (comm) S ...": the name may hold spaces and parentheses.
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

bool traced_by_other(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("TracerPid:", 0) == 0) {
      pid_t tracer = pid_t(std::atol(line.c_str() + 10));
      // Any thread of ctrl may trace (with -j, each helper session's own):
      // only a tracer outside this process is another.
      return tracer != 0 && access(("/proc/self/task/" + std::to_string(tracer)).c_str(), F_OK) != 0;
    }
  return false;
}

namespace {

// The wake descriptors of the live Tracers (see Tracer.h: a SIGCHLD read by
// one Tracer may be another's).
std::mutex& wakes_mutex() {
  static std::mutex m;
  return m;
}
std::vector<int>& wakes() {
  static std::vector<int> w;
  return w;
}

}  // namespace

void Tracer::set_helper_thread() { helper_thread = true; }

Tracer::Tracer() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (helper_thread) sigaddset(&set, kStopSignal);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  if (helper_thread) {
    // SIGINT and SIGTERM stay blocked here (a signalfd that held them would
    // take a Ctrl-C away from the main thread's).
    sigdelset(&set, SIGINT);
    sigdelset(&set, SIGTERM);
  }
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd_ < 0) throw InternalError(std::string("signalfd: ") + strerror(errno));
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    close(signal_fd_);
    throw InternalError(std::string("eventfd: ") + strerror(errno));
  }
  {
    std::lock_guard lock(wakes_mutex());
    wakes().push_back(wake_fd_);
  }
  if (!helper_thread) stop_signals_taken();
}

Tracer::~Tracer() {
  {
    std::lock_guard lock(wakes_mutex());
    std::erase(wakes(), wake_fd_);
  }
  if (wake_fd_ >= 0) close(wake_fd_);
  if (signal_fd_ >= 0) close(signal_fd_);
}

void Tracer::drain_wake() {
  uint64_t n;
  while (read(wake_fd_, &n, sizeof n) == ssize_t(sizeof n)) {
  }
}

pid_t Tracer::launch(const LaunchSpec& spec) {
  // Everything the child needs is built before fork: it only calls
  // async-signal-safe functions afterwards.
  std::vector<char*> argv, envp;
  for (auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) throw InternalError(std::string("pipe: ") + strerror(errno));
  pid_t parent = getpid();
  bool helper_stdin = helper_thread;
  // ctrl's own handlers (StopSignals.h) must not run in the child; signals
  // inherited as ignored stay ignored in the program, as they would be.
  bool default_int = !stop_signal_ignored(SIGINT), default_term = !stop_signal_ignored(SIGTERM);

  pid_t pid = fork();
  if (pid < 0) throw InternalError(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    // Die with ctrl even before the seize below gives us EXITKILL.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (default_int) signal(SIGINT, SIG_DFL);
    if (default_term) signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    personality(ADDR_NO_RANDOMIZE);
    // Its own process group: a Ctrl-C at the terminal is for ctrl, which
    // then stops the target itself and reports.
    setpgid(0, 0);
    // Move the inherited descriptors to their fixed numbers: fixed numbers
    // keep the environment, and so every stack address, the same across runs.
    for (auto [from, to] : spec.fds) {
      if (dup2(from, to) < 0) _exit(127);
    }
    if (helper_stdin) {
      int null = open("/dev/null", O_RDONLY);
      if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
      }
    }
    if (spec.quiet) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2) close(null);
      }
    }
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
      int e = -errno;  // negative: the working directory, not the program
      (void)!write(error_pipe[1], &e, sizeof e);
      _exit(127);
    }
    raise(SIGSTOP);
    execve(spec.path.c_str(), argv.data(), envp.data());
    int e = errno;
    (void)!write(error_pipe[1], &e, sizeof e);
    _exit(127);
  }
  close(error_pipe[1]);
  // Bounded: under a tracer that follows forks (ctrl under `strace -f`),
  // the child's stops go to that tracer and may never come here.
  auto give_up = [&](const std::string& why) {
    kill(pid, SIGKILL);
    // Bounded: another tracer may hold its exit (EXITKILL or our exit ends it).
    for (int i = 0; i < 200; ++i) {
      pid_t p = waitpid(pid, nullptr, __WALL | __WNOTHREAD | WNOHANG);
      if (p == pid || (p < 0 && errno != EINTR)) break;
      usleep(10000);
    }
    close(error_pipe[0]);
    throw UsageError("cannot start '" + spec.path + "': " + why);
  };
  int status = 0;
  pid_t got = 0;
  // The child stops within a millisecond or so: polls start at 50 us and
  // back off to 10 ms (a first sleep of 10 ms was a third of a short run).
  auto launch_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kLaunchWaitMs);
  for (useconds_t pause = 50;; pause = std::min<useconds_t>(pause * 2, 10000)) {
    got = waitpid(pid, &status, WSTOPPED | __WNOTHREAD | WNOHANG);
    if (got != 0 && !(got < 0 && errno == EINTR)) break;
    if (std::chrono::steady_clock::now() >= launch_deadline) break;
    usleep(pause);
  }
  if (got == 0 && traced_by_other(pid)) give_up(kAlreadyTraced);
  if (got == pid && !WIFSTOPPED(status)) {
    // Ended before its stop: it could not enter its working directory.
    int e = 0;
    bool said = read(error_pipe[0], &e, sizeof e) == ssize_t(sizeof e);
    close(error_pipe[0]);
    if (said && e < 0)
      throw UsageError("cannot start '" + spec.path + "' in its working directory '" + spec.cwd + "': " +
                       strerror(-e) + " (a trace replays in the directory it was recorded in)");
    throw TargetLost("the program ended before its exec (killed from outside ctrl?)");
  }
  if (got != pid) give_up("it did not stop before its exec within 10 s");
  long options = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                 PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD;
  if (ptrace(PTRACE_SEIZE, pid, nullptr, options) != 0) {
    int e = errno;
    if (e == EPERM && traced_by_other(pid)) give_up(kAlreadyTraced);
    kill(pid, SIGKILL);
    close(error_pipe[0]);
    throw InternalError(std::string("ptrace(PTRACE_SEIZE): ") + strerror(e) +
                        (e == EPERM ? " (is ptrace allowed here? see /proc/sys/kernel/yama/ptrace_scope)" : ""));
  }
  kill(pid, SIGCONT);
  // Run the target up to its exec (or its failure to exec). A SIGINT or
  // SIGTERM meanwhile is noted (interrupted()) and acted on by the caller.
  auto exec_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kLaunchWaitMs);
  for (;;) {
    auto stop = wait_for(pid, 100);
    if (!stop) {
      if (std::chrono::steady_clock::now() < exec_deadline) continue;
      give_up("it did not get to its exec within 10 s");
    }
    if (stop->exited()) {
      int e = 0;
      bool got = read(error_pipe[0], &e, sizeof e) == ssize_t(sizeof e);
      close(error_pipe[0]);
      if (got && e < 0)
        throw UsageError("cannot start '" + spec.path + "' in its working directory '" + spec.cwd +
                         "': " + strerror(-e) + " (a trace replays in the directory it was recorded in)");
      if (got) throw UsageError("cannot execute '" + spec.path + "': " + strerror(e));
      // Killed past exec's point of no return: the kernel could not map the
      // program (a truncated or corrupt file): the kernel sends SIGSEGV
      // then, never SIGKILL, which came from another process.
      if (WIFSIGNALED(stop->status) && WTERMSIG(stop->status) == SIGKILL)
        throw TargetLost(killed_from_outside("the program (in its exec)"));
      if (WIFSIGNALED(stop->status))
        throw UsageError("cannot execute '" + spec.path + "': the kernel could not load it (killed by " +
                         sigabbrev_np(WTERMSIG(stop->status)) + " in execve)");
      throw TargetLost("the program exited before its exec (killed from outside ctrl?)");
    }
    if (stop->event() == PTRACE_EVENT_EXEC) {
      close(error_pipe[0]);
      resume(pid);
      return pid;
    }
    // The initial SIGSTOP group-stop, SIGCONT: keep going.
    int sig = stop->signal_stop() && stop->signal() != SIGSTOP ? stop->signal() : 0;
    resume(pid, sig);
  }
}

std::optional<Stop> Tracer::wait(int timeout_ms, int also_fd) {
  also_fd_ready_ = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (;;) {
    Stop s;
    s.tid = waitpid(-1, &s.status, __WALL | __WNOTHREAD | WNOHANG);
    if (s.tid > 0) return s;
    if (s.tid < 0 && errno == ECHILD) return std::nullopt;
    int left = -1;
    if (timeout_ms >= 0) {
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return std::nullopt;
      left = int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    }
    pollfd fds[3] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}, {also_fd, POLLIN, 0}};
    int n = poll(fds, also_fd >= 0 ? 3 : 2, left);
    if (n < 0 && errno != EINTR) throw InternalError(std::string("poll: ") + strerror(errno));
    if (n > 0 && (fds[1].revents & POLLIN)) drain_wake();
    if (n > 0 && (fds[0].revents & POLLIN)) {
      read_signals();
      if (interrupted()) return std::nullopt;
    }
    if (n > 0 && also_fd >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      also_fd_ready_ = (fds[2].revents & (POLLIN | POLLHUP)) != 0;
      return std::nullopt;
    }
  }
}

void Tracer::read_signals() {
  signalfd_siginfo si;
  bool child = false;
  while (read(signal_fd_, &si, sizeof si) == ssize_t(sizeof si)) {
    bool stop = ((si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) && !stop_signal_ignored(int(si.ssi_signo))) ||
                si.ssi_signo == unsigned(kStopSignal);
    if (stop && interrupted_signal_ == 0) interrupted_signal_ = int(si.ssi_signo);
    if (si.ssi_signo == SIGCHLD) child = true;
  }
  if (!child) return;
  // It may have been another Tracer's (a helper's tracee stopped): each
  // then asks waitpid itself. Without this a helper's start-up waited out
  // its 100 ms polls (110-230 ms to its checkpoint against 10-20 ms).
  const uint64_t one = 1;
  std::lock_guard lock(wakes_mutex());
  for (int fd : wakes())
    if (fd != wake_fd_ && write(fd, &one, sizeof one) < 0) {
      // A wake already pending (the counter is far from full): enough.
    }
}

bool Tracer::poll_signals() {
  // Only SIGINT and SIGTERM matter here; a SIGCHLD read along the way loses
  // nothing (wait() asks waitpid before it sleeps on the descriptor, and
  // reads the descriptor whenever it sleeps on it).
  if (interrupted()) return true;
  auto now = std::chrono::steady_clock::now();
  if (now - signals_polled_ < kSignalPollInterval) return false;
  signals_polled_ = now;
  read_signals();
  return interrupted();
}

std::optional<Stop> Tracer::wait_for(pid_t tid, int timeout_ms) {
  // Polled rather than blocking in waitpid: a blocking wait for a zombie
  // leader (its stop never comes) hung ctrl for ever, deaf to SIGINT and
  // SIGTERM, which sit in the signalfd.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    Stop s;
    s.tid = waitpid(tid, &s.status, __WALL | __WNOTHREAD | WNOHANG);
    if (s.tid == tid) return s;
    if (s.tid < 0 && errno != EINTR) return std::nullopt;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    // SIGCHLD wakes the poll for a child's or tracee's stop; the 10 ms cap
    // covers a SIGCHLD already read by read_signals.
    int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    pollfd pfd[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(pfd, 2, std::min(left, 10)) > 0) {
      if (pfd[1].revents & POLLIN) drain_wake();
      read_signals();
      if (interrupted()) return std::nullopt;
    }
  }
}

bool Tracer::reap_killed(pid_t pid, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int status = 0;
    pid_t p = waitpid(-1, &status, __WALL | __WNOTHREAD | WNOHANG);
    if (p == pid && (WIFEXITED(status) || WIFSIGNALED(status))) return true;
    if (p < 0 && errno != EINTR) return false;
    if (p > 0) continue;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    pollfd pfd[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(pfd, 2, 10) > 0) {
      if (pfd[1].revents & POLLIN) drain_wake();
      read_signals();
    }
  }
}

void Tracer::resume(pid_t tid, int signal) { ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(long(signal))); }

bool Tracer::interrupt(pid_t tid) { return ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0; }

unsigned long Tracer::event_message(pid_t tid) {
  unsigned long msg = 0;
  ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &msg);
  return msg;
}

bool Tracer::siginfo(pid_t tid, siginfo_t& info) { return ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) == 0; }

std::vector<pid_t> threads_of(pid_t pid) {
  std::vector<pid_t> out;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    out.push_back(pid_t(std::stol(e->d_name)));
  }
  closedir(d);
  return out;
}

bool catches_signal(pid_t tid, int sig) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigCgt:", 0) == 0) {
      unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      return (mask >> (sig - 1)) & 1;
    }
  }
  return false;
}

}  // namespace ctrl
