// Launching the target and following it to its checkpoint. Before the
// checkpoint the target is one traced process (or a child it forked before
// its first thread, which is then followed instead), its stops tell
// everything, and the agent's start-up handshake (Hello, then
// CheckpointReady from the process that becomes the fork server) arrives on
// the control channel. A program that ends before its first thread has had
// its one execution there.
#include <fmt/format.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "binary/Backtracer.h"
#include "binary/ElfInspector.h"
#include "cli/ExitStatus.h"
#include "control.pb.h"
#include "reports/SignalDescription.h"
#include "session/HangWatch.h"
#include "session/ProgramLibraries.h"
#include "session/Session.h"

namespace ctrl {

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

}  // namespace

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
  if (!config_.user_handoffs) spec.env.push_back("CTRL_HANDOFF=kernel");
  spec.env.push_back("CTRL_CONTROL_FD=" + std::to_string(kTargetControlFd));
  spec.env.push_back("CTRL_REGION_FD=" + std::to_string(kTargetRegionFd));
  // A sanitizer's runtime must come first (it refuses to run otherwise), so
  // the agent comes after it: its interceptors then call the agent's.
  std::string preload;
  bool sanitized = false;
  // (A TSan build's atomics are calls into TSan's runtime, which the agent
  // binds to its own wrappers: agent/TsanAtomics.h.)
  const std::vector<std::string> libraries = program_libraries(config_.program);
  // clang links TSan's runtime into the program by default: its
  // interceptors and its own threads are then code of the program's, which
  // the agent cannot tell apart (the thread start above hung).
  if (defines_symbol(config_.program, "__tsan_init").value_or(false))
    throw UsageError(
        "ThreadSanitizer's runtime is linked into the program (clang's default): ctrl needs it as a shared library; "
        "rebuild with -shared-libsan");
  for (const auto& lib : libraries) {
    if (is_sanitizer_runtime(lib)) preload += lib + ":";
    if (is_sanitizer_runtime(lib) || std::filesystem::path(lib).filename().string().rfind("libubsan.so", 0) == 0)
      sanitized = true;
  }
  preload += config_.agent;
  // A sanitizer's first report ends the execution through abort(), where
  // the agent makes it the bug (agent/SanitizerRuntime.h). The user's own
  // options come after these, so theirs win.
  if (sanitized)
    for (const char* name : {"ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"}) {
      std::string prefix = std::string(name) + "=";
      std::string mine = prefix + "halt_on_error=1:abort_on_error=1";
      // Under the models that choose what each atomic read reads (c11,
      // rc11, ra) a read may read a store older than the last (or, under
      // c11, one made later), while TSan's happens-before follows the order
      // the operations ran in: a synchronisation it misses makes a false
      // race. Its reports are off there; ctrl's own C11 race check reports
      // data races under those models.
      if (std::string(name) == "TSAN_OPTIONS" &&
          (config_.model == shm::MemoryModel::C11 || config_.model == shm::MemoryModel::RC11 ||
           config_.model == shm::MemoryModel::RA))
        mine += ":report_bugs=0";
      auto user =
          std::find_if(spec.env.begin(), spec.env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
      if (user == spec.env.end())
        spec.env.push_back(mine);
      else
        *user = mine + ":" + user->substr(prefix.size());
    }
  // A Go program: no asynchronous preemption. The runtime's sysmon sends
  // SIGURG to a goroutine that has run for 10 ms of wall-clock time, so
  // whether it does at a given step depends on time, not on the schedule,
  // and an execution and its replay (DPOR's prefixes) differed. Goroutines
  // are still preempted at function calls; what the program computes does
  // not change. The user's own GODEBUG settings come after, so theirs win.
  if (is_go_program(config_.program)) {
    const std::string prefix = "GODEBUG=", mine = prefix + "asyncpreemptoff=1";
    auto user =
        std::find_if(spec.env.begin(), spec.env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    if (user == spec.env.end())
      spec.env.push_back(mine);
    else
      *user = mine + "," + user->substr(prefix.size());
  }
  spec.env.push_back("LD_PRELOAD=" + preload + (user_preload.empty() ? "" : ":" + user_preload));
  spec.cwd = config_.cwd;
  spec.fds = {{sv[1], kTargetControlFd}, {region_.fd(), kTargetRegionFd}};
  if (config_.sites_fd >= 0) {
    spec.env.push_back("CTRL_SITES_FD=" + std::to_string(kTargetSitesFd));
    spec.fds.push_back({config_.sites_fd, kTargetSitesFd});
  }
  spec.quiet = !config_.show_output;
  {
    timespec real_now{}, mono_now{};
    clock_gettime(CLOCK_REALTIME, &real_now);
    clock_gettime(CLOCK_MONOTONIC, &mono_now);
    auto ns = [](const timespec& t) { return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; };
    shm::Header& h = region_.header();
    h.clock_realtime_ns = config_.clock_realtime_ns ? config_.clock_realtime_ns : ns(real_now);
    h.clock_monotonic_ns = config_.clock_monotonic_ns ? config_.clock_monotonic_ns : ns(mono_now);
  }

  unpin_for_launch();
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
    throw UsageError(
        "the program ran without ctrl's agent (setuid, or it cleared LD_PRELOAD): it cannot be controlled");
  template_pid_ = 0;
  current_pid_ = 0;
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
      take_events(r, std::min(h.steps.load(), region_.capacity()));
      if (WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGKILL)
        throw TargetLost(killed_from_outside("the program (in its start-up)"));
      if (WIFSIGNALED(s.status)) {
        r.end = ExecutionResult::End::Bug;
        r.kind = BugKind::Crash;
        r.facts.signal = WTERMSIG(s.status);
        r.message = fmt::format("killed by {}", signal_name(WTERMSIG(s.status)));
      } else {
        r.exit_status = WEXITSTATUS(s.status);
        judge_exit(r);
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
      r.kind = BugKind::Crash;
      r.facts.signal = sig;
      r.facts.fault_addr = reinterpret_cast<uint64_t>(info.si_addr);
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

bool Session::follow_forked_child() {
  // The program forked before its first thread and this process ended: a
  // child still alive may yet create threads (daemon(), or the work done
  // in a child). Our tracees are the launched process's descendants, traced
  // by this thread: with -j, the other sessions' threads trace theirs (an
  // explorer's fork server taken for a helper's was killed by the helper,
  // and nothing could reap it: the explorer waited for that helper).
  pid_t me = gettid();
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

}  // namespace ctrl
