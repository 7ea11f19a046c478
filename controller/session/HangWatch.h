// Whether the thread that should make progress is stuck: the --hang-timeout
// rule, judged from what the kernel says the thread did (/proc), not from
// the wall clock. On a loaded machine a correct thread can take far longer
// than its CPU time to compute; what makes it a hang is that it either
//  * used --hang-timeout seconds of its own CPU time, or
//  * spent --hang-timeout seconds asleep in the kernel (not running, not
//    waiting for a CPU) and is asleep now: it waits for something outside
//    the program (input, a child, a timer), which the report names,
// all without a new visible operation. Time spent runnable but waiting for
// a CPU counts as neither.
//
// The session calls check() while it polls. Any new event or a change of
// the thread restarts the count.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace ctrl {

// One reading of a task's scheduling counters.
struct TaskTimes {
  char state = '?';   // R, S, D, T, t, Z, ... (proc(5))
  double cpu = 0;     // seconds on a CPU
  double waited = 0;  // seconds runnable, waiting for a CPU (0 if the kernel does not say)
};

// Reads /proc/PID/task/TID; nothing when the task is gone.
std::optional<TaskTimes> read_task_times(pid_t pid, pid_t tid);
// The system call the task is blocked in, as "read(0, ...)", from
// /proc/PID/task/TID/syscall; empty when it is not in one.
std::string blocking_call(pid_t pid, pid_t tid);
// "read", "futex", ... or "system call N".
std::string syscall_name(long number);

class HangWatch {
 public:
  explicit HangWatch(double timeout_seconds) : timeout_(timeout_seconds) {}

  // `tid`: the kernel thread of `thread` (the one holding the token) in
  // process `pid`; `steps`: events so far. Returns the hang's message, or
  // nothing.
  std::optional<std::string> check(pid_t pid, uint32_t thread, pid_t tid, uint64_t steps);

 private:
  using clock = std::chrono::steady_clock;
  void restart(pid_t pid, uint32_t thread, pid_t tid, uint64_t steps);

  double timeout_;
  bool started_ = false;
  pid_t pid_ = 0, tid_ = 0;
  uint32_t thread_ = 0;
  uint64_t steps_ = 0;
  clock::time_point since_;
  TaskTimes base_;
  bool base_known_ = false;  // base_ read (kFirstReading after the restart)
  static constexpr std::chrono::milliseconds kFirstReading{50};
};

}  // namespace ctrl
