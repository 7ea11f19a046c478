// ptrace plumbing: starting the target under PTRACE_SEIZE, waiting for
// stops of any tracee, resuming and interrupting them. A Tracer is used only
// from the thread that created it (ptrace is per tracer thread), and waits
// only for that thread's children and tracees (__WNOTHREAD): with -j, each
// extra session lives in a thread of its own (HelperSession.h).
//
// Signals: SIGCHLD, SIGINT and SIGTERM are blocked and read from a signalfd.
// SIGINT and SIGTERM belong to the main thread's Tracer; a Tracer made in a
// helper thread (set_helper_thread) never reads them, and takes kStopSignal
// sent to its thread (pthread_kill) as its stop instead. SIGCHLD is sent to
// the process, not to the tracing thread, so with several Tracers (-j) any
// one's signalfd may take another's: a Tracer that reads a SIGCHLD wakes
// every other live Tracer (each polls an eventfd of its own beside its
// signalfd), which then asks waitpid for its own children and tracees.
//
// Every tracee is seized with EXITKILL, so when ctrl dies, even by SIGKILL,
// the kernel kills the target, its checkpoint and every execution.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ctrl {

struct LaunchSpec {
  std::string path;               // absolute path of the executable
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // complete environment of the target
  std::string cwd;                // empty: inherit
  std::vector<std::pair<int, int>> fds;  // (descriptor in ctrl, number in the target)
  bool quiet = true;              // stdout/stderr of the target go to /dev/null
};

// A decoded wait status.
struct Stop {
  pid_t tid = 0;
  int status = 0;
  bool exited() const;       // exited or killed: the tid is gone
  bool signal_stop() const;  // signal-delivery-stop
  int signal() const;        // for signal stops and deaths
  int event() const;         // PTRACE_EVENT_* or 0
};

class Tracer {
 public:
  // Sent to a helper thread to stop its session (interrupted_by() says it).
  static constexpr int kStopSignal = SIGUSR2;
  // Marks the calling thread as a helper: its Tracers leave SIGINT and
  // SIGTERM to the main thread's, stop on kStopSignal, and the programs it
  // launches read /dev/null as their stdin (the terminal or pipe is the
  // main session's). Call before making a Tracer in that thread.
  static void set_helper_thread();

  Tracer();
  ~Tracer();

  // Forks, execs `spec` stopped, seizes it and lets it run. Throws
  // UsageError when the program cannot be executed.
  pid_t launch(const LaunchSpec& spec);

  // Next stop of any tracee, waiting at most `timeout_ms` (-1: forever) and
  // returning early (nullopt) when `also_fd` becomes readable or a SIGINT or
  // SIGTERM arrives (then interrupted() is true).
  std::optional<Stop> wait(int timeout_ms, int also_fd = -1);
  // Whether the last wait() returned because `also_fd` was readable (or
  // hung up): its reader may skip asking again.
  bool also_fd_ready() const { return also_fd_ready_; }
  // Bound of a wait for one thread's stop (wait_for). A thread interrupted
  // or killed stops within milliseconds; one that does not within this is
  // gone in a way waitpid cannot say: a thread-group leader that is a
  // zombie while its other threads still run (a signal handler's _exit,
  // a kill from outside) is never reported until they are reaped.
  static constexpr int kThreadWaitMs = 2000;
  // Bound of the launch, from fork to the program's exec.
  static constexpr int kLaunchWaitMs = 10000;
  // Next stop of `tid` only, waiting at most `timeout_ms`; nullopt when the
  // time is up, `tid` is no tracee or child of ours, or a SIGINT or SIGTERM
  // arrived (then interrupted() is true). Never blocks for ever.
  std::optional<Stop> wait_for(pid_t tid, int timeout_ms = kThreadWaitMs);
  // Waits for `pid`'s exit after a SIGKILL, for at most `timeout_ms`,
  // taking (and dropping) the other stops and exits that come meanwhile.
  // False when it did not come (not ours, or still going).
  bool reap_killed(pid_t pid, int timeout_ms = kThreadWaitMs);
  bool interrupted() const { return interrupted_signal_ != 0; }
  // SIGINT or SIGTERM once interrupted, else 0.
  int interrupted_by() const { return interrupted_signal_; }
  // Reads the signals that arrived, without waiting (for code that does not
  // call wait() for a while), at most once per kSignalPollInterval: the
  // explorer asks several times per execution, and each read is a system
  // call, a costly one in a virtual machine. Returns interrupted().
  bool poll_signals();
  static constexpr std::chrono::microseconds kSignalPollInterval{500};
  // The descriptor SIGINT and SIGTERM arrive on (a prompt polls it while it
  // waits for input) and forgetting one that was handled there.
  int signal_fd() const { return signal_fd_; }
  void clear_interrupted() { interrupted_signal_ = 0; }

  void resume(pid_t tid, int signal = 0);
  bool interrupt(pid_t tid);
  unsigned long event_message(pid_t tid);
  bool siginfo(pid_t tid, siginfo_t& info);

 private:
  void read_signals();
  void drain_wake();

  int signal_fd_ = -1;
  int wake_fd_ = -1;  // another Tracer read a SIGCHLD (eventfd)
  int interrupted_signal_ = 0;
  std::chrono::steady_clock::time_point signals_polled_{};
  bool also_fd_ready_ = false;
};

// Threads of a process, from /proc.
std::vector<pid_t> threads_of(pid_t pid);
// Whether `pid` is a zombie (its state in /proc/pid/stat): dead, and only
// its parent's wait is missing, which may be long in coming (a process
// whose parent exited waits for init).
bool is_zombie(pid_t pid);
// Whether a process other than ctrl traces `pid` (TracerPid in /proc).
bool traced_by_other(pid_t pid);
// Whether `tid` has a handler installed for `sig` (SigCgt in /proc).
bool catches_signal(pid_t tid, int sig);

}  // namespace ctrl
